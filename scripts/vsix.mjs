// Reads a .vsix (a zip archive) with Node alone: its entry names, and its files extracted. The release
// workflow checks and smoke-tests packages on Linux, macOS and Windows runners, where no one unzip tool exists.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

/** The archive's entries from its central directory: name, compression method, sizes, local header offset. */
function entries(zip) {
  // the end-of-directory record is the last 22 bytes, plus a comment of at most 64 KB
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === END_OF_DIRECTORY) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive (no end-of-directory record)');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const out = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== DIRECTORY_ENTRY) throw new Error(`damaged zip directory at byte ${at}`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    out.push({
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      offset: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

/** Entry names of a .vsix, e.g. `extension/dist/cli.js`. */
export function listVsix(file) {
  return entries(readFileSync(file)).map((e) => e.name);
}

/** Extracts every file of a .vsix into `dir` (stored and deflated entries: what vsce writes). */
export function extractVsix(file, dir) {
  const zip = readFileSync(file);
  for (const e of entries(zip)) {
    if (e.name.endsWith('/')) continue;
    const target = normalize(join(dir, e.name));
    if (!target.startsWith(normalize(dir))) throw new Error(`entry ${e.name} points outside the target folder`);
    if (zip.readUInt32LE(e.offset) !== LOCAL_HEADER) throw new Error(`damaged zip entry ${e.name}`);
    const start = e.offset + 30 + zip.readUInt16LE(e.offset + 26) + zip.readUInt16LE(e.offset + 28);
    const raw = zip.subarray(start, start + e.compressedSize);
    if (e.method !== 0 && e.method !== 8) throw new Error(`entry ${e.name}: compression method ${e.method} is not supported`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, e.method === 8 ? inflateRawSync(raw) : raw);
  }
}
