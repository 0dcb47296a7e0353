import { type FileHandle, open } from 'node:fs/promises';

/**
 * SQLite's file format (sqlite.org/fileformat2.html), read directly for a salvage. SQLite reads a page only
 * through its parent, so when an interior page is lost (a file cut short: interior pages are often allocated
 * late, at the end of the file; a page overwritten with garbage) every leaf below it is out of SQLite's reach
 * although its rows are intact. Here the readable b-trees are walked to learn which pages are in use, and the
 * table leaf pages nothing reaches are decoded: their rows are the ones a salvage through SQLite missed.
 */

export type Value = null | number | string | Buffer;

export interface LooseRow {
  readonly rowid: number;
  readonly values: readonly Value[];
}

const INDEX_INTERIOR = 2;
const TABLE_INTERIOR = 5;
const INDEX_LEAF = 10;
const TABLE_LEAF = 13;

/** What is read at once (a whole number of pages of any size), and how many such blocks are kept (64 MiB). */
const BLOCK_BYTES = 1 << 20;
const BLOCKS_KEPT = 64;
const EMPTY = Buffer.alloc(0);

export class PageFile {
  private readonly blocks = new Map<number, Buffer>();

  private constructor(
    private readonly handle: FileHandle,
    private readonly pageSize: number,
    /** The page size less the bytes reserved at the end of each page (by extensions). */
    private readonly usable: number,
    /** Whole pages in the file: a last page cut through has lost its cells, which sit at a page's end. */
    readonly pages: number,
    private readonly freelistTrunk: number,
  ) {}

  /** Undefined when `file` is not a SQLite file this reads (no header, or a text encoding other than UTF-8). */
  static async open(file: string): Promise<PageFile | undefined> {
    const handle = await open(file, 'r');
    const head = Buffer.alloc(100);
    const { bytesRead } = await handle.read(head, 0, 100, 0);
    const raw = head.readUInt16BE(16);
    const pageSize = raw === 1 ? 65536 : raw;
    const encoding = head.readUInt32BE(56);
    const valid =
      bytesRead === 100 && head.toString('latin1', 0, 16) === 'SQLite format 3\0' && pageSize >= 512 &&
      (pageSize & (pageSize - 1)) === 0 && encoding <= 1;
    if (!valid) {
      await handle.close();
      return undefined;
    }
    const pages = Math.floor((await handle.stat()).size / pageSize);
    return new PageFile(handle, pageSize, pageSize - head[20]!, pages, head.readUInt32BE(32));
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  /** Page `n` (1-based); undefined past the end of the file. */
  async page(n: number): Promise<Buffer | undefined> {
    if (!Number.isInteger(n) || n < 1 || n > this.pages) return undefined;
    const perBlock = BLOCK_BYTES / this.pageSize;
    const index = Math.floor((n - 1) / perBlock);
    const block = this.blocks.get(index) ?? (await this.readBlock(index));
    const at = ((n - 1) % perBlock) * this.pageSize;
    return at + this.pageSize <= block.length ? block.subarray(at, at + this.pageSize) : undefined;
  }

  /**
   * The file is read a block of pages at a time, the last BLOCKS_KEPT blocks kept: a b-tree's pages were mostly
   * written one after another, so a walk makes about one read per block instead of one per page.
   */
  private async readBlock(index: number): Promise<Buffer> {
    const buf = Buffer.alloc(BLOCK_BYTES);
    const { bytesRead } = await this.handle.read(buf, 0, BLOCK_BYTES, index * BLOCK_BYTES);
    const block = buf.subarray(0, bytesRead);
    if (this.blocks.size >= BLOCKS_KEPT) this.blocks.delete(this.blocks.keys().next().value!);
    this.blocks.set(index, block);
    return block;
  }

  /**
   * Marks every page in use: the b-trees from `roots`, as far as their pages can be read, the overflow chains
   * of their cells, and the free list (freed pages hold deleted rows: they must not come back). Returns the
   * roots whose tree has a page that cannot be read: only their rows can be on pages nothing reaches.
   */
  async markInUse(roots: readonly number[], inUse: Uint8Array): Promise<Set<number>> {
    const holed = new Set<number>();
    for (const root of roots) {
      const stack = [root];
      while (stack.length > 0) {
        const n = stack.pop()!;
        if (inUse[n]) continue;
        const node = await this.btreePage(n);
        if (!node) {
          holed.add(root);
          continue;
        }
        inUse[n] = 1;
        stack.push(...node.children);
        for (const cell of node.cells) {
          const chain = await this.overflowChain(node.type, node.page, cell, inUse);
          if (!chain) holed.add(root);
          else for (const p of chain.pages) inUse[p] = 1;
        }
      }
    }
    await this.markFreelist(inUse);
    return holed;
  }

  /** The rows of every table leaf page not marked in use, one page at a time (a page's rows are of one table). */
  async *looseLeaves(inUse: Uint8Array): AsyncGenerator<{ readonly page: number; readonly rows: readonly LooseRow[] }> {
    for (let n = 2; n <= this.pages; n++) {
      if (inUse[n]) continue;
      const node = await this.btreePage(n);
      if (node?.type !== TABLE_LEAF) continue;
      const rows: LooseRow[] = [];
      for (const cell of node.cells) {
        const chain = await this.overflowChain(node.type, node.page, cell, inUse, true);
        const [, rowidAt] = varint(node.page, cell);
        const rowid = varint(node.page, cell + rowidAt)[0];
        const values = chain && Number.isSafeInteger(rowid) ? decodeRecord(chain.payload) : undefined;
        if (values) rows.push({ rowid, values });
      }
      if (rows.length > 0) yield { page: n, rows };
    }
  }

  /** A b-tree page's type, cells and children; undefined when `n` is past the end or not a b-tree page. */
  private async btreePage(n: number): Promise<{ type: number; page: Buffer; cells: number[]; children: number[] } | undefined> {
    const page = await this.page(n);
    if (!page) return undefined;
    const at = n === 1 ? 100 : 0;
    const type = page[at]!;
    if (type !== INDEX_INTERIOR && type !== TABLE_INTERIOR && type !== INDEX_LEAF && type !== TABLE_LEAF) return undefined;
    const interior = type === INDEX_INTERIOR || type === TABLE_INTERIOR;
    const count = page.readUInt16BE(at + 3);
    const pointers = at + (interior ? 12 : 8);
    if (pointers + 2 * count > this.usable) return undefined;
    const cells: number[] = [];
    const children: number[] = [];
    for (let i = 0; i < count; i++) {
      const cell = page.readUInt16BE(pointers + 2 * i);
      if (cell < pointers + 2 * count || cell + 4 > this.usable) return undefined;
      cells.push(cell);
      if (interior) children.push(page.readUInt32BE(cell));
    }
    if (interior) children.push(page.readUInt32BE(at + 8));
    return { type, page, cells, children };
  }

  /**
   * The overflow pages a cell's payload continues on, and with `withPayload` the whole payload (a walk needs
   * only the pages); undefined when the payload runs past the page or onto a page that is missing or in use by
   * something else. Table interior cells carry no payload.
   */
  private async overflowChain(
    type: number,
    page: Buffer,
    cell: number,
    inUse: Uint8Array,
    withPayload = false,
  ): Promise<{ payload: Buffer; pages: number[] } | undefined> {
    if (type === TABLE_INTERIOR) return { payload: EMPTY, pages: [] };
    let at = cell + (type === INDEX_INTERIOR ? 4 : 0);
    const [size, sizeLen] = varint(page, at);
    at += sizeLen;
    if (type === TABLE_LEAF) at += varint(page, at)[1];
    const local = this.localSize(size, type === TABLE_LEAF);
    if (!Number.isSafeInteger(size) || at + local + (local < size ? 4 : 0) > this.usable) return undefined;
    const parts = withPayload ? [page.subarray(at, at + local)] : [];
    const pages: number[] = [];
    let have = local;
    let next = local < size ? page.readUInt32BE(at + local) : 0;
    while (have < size) {
      const overflow = inUse[next] ? undefined : await this.page(next);
      if (!overflow || pages.includes(next)) return undefined;
      pages.push(next);
      const take = Math.min(size - have, this.usable - 4);
      if (withPayload) parts.push(overflow.subarray(4, 4 + take));
      have += take;
      next = overflow.readUInt32BE(0);
    }
    return { payload: withPayload ? Buffer.concat(parts) : EMPTY, pages };
  }

  /** How much of a payload of `size` bytes a cell keeps on its own page (the format's formula). */
  private localSize(size: number, tableLeaf: boolean): number {
    const u = this.usable;
    const max = tableLeaf ? u - 35 : Math.floor(((u - 12) * 64) / 255) - 23;
    if (size <= max) return size;
    const min = Math.floor(((u - 12) * 32) / 255) - 23;
    const k = min + ((size - min) % (u - 4));
    return k <= max ? k : min;
  }

  private async markFreelist(inUse: Uint8Array): Promise<void> {
    for (let trunk = this.freelistTrunk; trunk > 0 && !inUse[trunk]; ) {
      const page = await this.page(trunk);
      if (!page) return;
      inUse[trunk] = 1;
      const leaves = page.readUInt32BE(4);
      if (leaves > this.usable / 4 - 2) return;
      for (let i = 0; i < leaves; i++) {
        const leaf = page.readUInt32BE(8 + 4 * i);
        if (leaf <= this.pages) inUse[leaf] = 1;
      }
      trunk = page.readUInt32BE(0);
    }
  }
}

/** A varint at `at`: its value (exact up to 2^53) and length. */
function varint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const byte = buf[at + i] ?? 0;
    if (i === 8) return [value * 256 + byte, 9];
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return [value, i + 1];
  }
  return [value, 9];
}

/**
 * A record's values (sqlite.org/fileformat2.html#record_format); undefined when it does not parse exactly, or
 * holds an integer beyond 2^53 (the driver would bind it as NULL: such a row is not put back half right).
 */
export function decodeRecord(payload: Buffer): Value[] | undefined {
  const [headerSize, first] = varint(payload, 0);
  if (headerSize < first || headerSize > payload.length) return undefined;
  const values: Value[] = [];
  let body = headerSize;
  for (let at = first; at < headerSize; ) {
    const [serial, len] = varint(payload, at);
    at += len;
    const size = serialSize(serial);
    if (size === undefined || body + size > payload.length) return undefined;
    const value = readValue(payload, serial, body, size);
    if (value === undefined) return undefined;
    values.push(value);
    body += size;
  }
  return body === payload.length ? values : undefined;
}

function serialSize(serial: number): number | undefined {
  if (serial >= 12) return Math.floor((serial - 12) / 2);
  return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, undefined, undefined][serial];
}

function readValue(buf: Buffer, serial: number, at: number, size: number): Value | undefined {
  switch (serial) {
    case 0:
      return null;
    case 6: {
      const big = Number(buf.readBigInt64BE(at));
      return Number.isSafeInteger(big) ? big : undefined;
    }
    case 7:
      return buf.readDoubleBE(at);
    case 8:
      return 0;
    case 9:
      return 1;
  }
  if (serial < 6) return buf.readIntBE(at, size);
  return serial % 2 === 0 ? Buffer.from(buf.subarray(at, at + size)) : buf.toString('utf8', at, at + size);
}
