/**
 * l2Kernel.wat assembled (wabt; test/unit/l2Kernel.test.ts assembles the source again and compares): the
 * squared distances from one query to every vector of a layer, four float32 lanes at a time. 50,000 100-d
 * vectors take ~0.6 ms on this 2-core machine, against ~4 ms for the same loop in JavaScript and 5-9 ms for
 * sqlite-vec 0.1.9's scan, whose prebuilt vec0 has no SIMD code (docs/search.md, "KNN strategy").
 */
const WASM =
  'AGFzbQEAAAABCQFgBX9/f39/AAMCAQAFAwEAAQcPAgZtZW1vcnkCAAJsMgAACpwBAZkBAgJ/AnsCQANAIAUgA08NAf0MAAAAAAAAAAAAAAAAAAAAACEHQQAh' +
  'BgJAA0AgBiAETw0BIAEgBmr9AAQAIAAgBmr9AAQA/eUBIQggByAIIAj95gH95AEhByAGQRBqIQYMAAsLIAIgB/0fACAH/R8BkiAH/R8CIAf9HwOSkjgCACAC' +
  'QQRqIQIgASAEaiEBIAVBAWohBQwACwsL';

export const L2_KERNEL_WASM: Uint8Array = Buffer.from(WASM, 'base64');

/** The part of the WebAssembly JS API used here (its types come with TypeScript's DOM library, not Node's). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule) => { readonly exports: unknown };
};
type WasmModule = object;

interface Exports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  l2(query: number, base: number, out: number, n: number, bytes: number): void;
}

const PAGE = 65_536;
let compiled: WasmModule | null | undefined;

/** The compiled kernel, or null where this runtime's WebAssembly has no SIMD (it has since V8 9.1). */
function kernelModule(): WasmModule | null {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(L2_KERNEL_WASM);
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

const align16 = (bytes: number): number => Math.ceil(bytes / 16) * 16;

/**
 * `count` vectors of `dimension` floats in the kernel's memory, each padded with zeros to a whole number of
 * lanes (the query too, so padding adds nothing to a distance). Laid out as: the query, the vectors, the distances.
 */
export class L2Vectors {
  /** Floats per vector in memory: the dimension rounded up to four lanes. */
  private readonly stride: number;
  private readonly exports: Exports;
  private query!: Float32Array;
  private vectors!: Float32Array;
  private out!: Float32Array;
  private size = 0;

  private constructor(instance: { readonly exports: unknown }, readonly dimension: number) {
    this.exports = instance.exports as unknown as Exports;
    this.stride = Math.ceil(dimension / 4) * 4;
  }

  /** Room for `count` vectors of `dimension` floats (zeros), or undefined where the kernel cannot run. */
  static create(dimension: number, count: number): L2Vectors | undefined {
    const module = kernelModule();
    if (!module || !Number.isInteger(dimension) || dimension < 1) return undefined;
    const made = new L2Vectors(new WebAssembly.Instance(module), dimension);
    return made.resize(count) ? made : undefined;
  }

  /** `vectors` (`dimension` floats each, one after another) in the kernel's memory, or undefined where it cannot run. */
  static of(vectors: Float32Array, dimension: number): L2Vectors | undefined {
    if (vectors.length % dimension !== 0) return undefined;
    const copy = L2Vectors.create(dimension, vectors.length / dimension);
    if (!copy) return undefined;
    const plain = copy.unpadded();
    if (plain) plain.set(vectors);
    else for (let i = 0; i < copy.count; i++) copy.vectors.set(vectors.subarray(i * dimension, (i + 1) * dimension), i * copy.stride);
    return copy;
  }

  /** Bytes of memory `count` vectors of `dimension` floats take. */
  static bytesFor(dimension: number, count: number): number {
    return count * Math.ceil(dimension / 4) * 4 * 4;
  }

  get count(): number {
    return this.size;
  }

  /**
   * Makes room for `count` vectors; the first of those held stay where they were. False when no WebAssembly memory
   * can hold them (4 GiB). The views given out before (`unpadded`, `vectorsAt`, `distances`) are no longer valid.
   */
  resize(count: number): boolean {
    if (!Number.isInteger(count) || count < 0) return false;
    const vectorsAt = align16(this.stride * 4);
    const outAt = vectorsAt + count * this.stride * 4;
    const bytes = outAt + count * 4;
    const memory = this.exports.memory;
    try {
      if (bytes > memory.buffer.byteLength) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
    } catch {
      return false;
    }
    this.size = count;
    this.query = new Float32Array(memory.buffer, 0, this.stride);
    this.vectors = new Float32Array(memory.buffer, vectorsAt, count * this.stride);
    this.out = new Float32Array(memory.buffer, outAt, count);
    return true;
  }

  /** All the vectors, one after another, to read or write: where they lie unpadded (the dimension a multiple of four). */
  unpadded(): Float32Array | undefined {
    return this.stride === this.dimension ? this.vectors : undefined;
  }

  /**
   * Vectors `from` .. `from + count` as they were put, where they lie unpadded (after `resize` to fewer, those
   * beyond the new count too, while nothing wrote over them): a view, valid until the next `resize`.
   */
  vectorsAt(from: number, count: number): Float32Array | undefined {
    const at = this.vectors.byteOffset + from * this.stride * 4;
    const { buffer } = this.exports.memory;
    if (this.stride !== this.dimension || at + count * this.stride * 4 > buffer.byteLength) return undefined;
    return new Float32Array(buffer, at, count * this.stride);
  }

  /** The squared distance from `query` to each vector, in order: a view into the kernel's memory, valid until the next call. */
  distances(query: Float32Array): Float32Array {
    this.query.fill(0).set(query.subarray(0, this.dimension));
    this.exports.l2(this.query.byteOffset, this.vectors.byteOffset, this.out.byteOffset, this.size, this.stride * 4);
    return this.out;
  }
}
