import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { L2_KERNEL_WASM, L2Vectors } from '../../src/core/search/l2Kernel';
import { rng } from './probes';

const SOURCE = path.resolve(__dirname, '../../../src/core/search/l2Kernel.wat');

describe('the WebAssembly L2 kernel', () => {
  test('its bytes are l2Kernel.wat assembled', async () => {
    const wabt = await (require('wabt') as () => Promise<{ parseWat(name: string, text: string, features: object): { toBinary(o: object): { buffer: Uint8Array } } }>)();
    const assembled = wabt.parseWat('l2Kernel.wat', readFileSync(SOURCE, 'utf8'), { simd: true }).toBinary({}).buffer;
    assert.deepEqual(Buffer.from(L2_KERNEL_WASM), Buffer.from(assembled));
  });

  for (const dimension of [1, 3, 4, 5, 100, 384]) {
    test(`squared distances of ${dimension}-d vectors match a float64 sum (lanes padded with zeros)`, () => {
      const next = rng(dimension);
      const count = 257;
      const rows = Array.from({ length: count }, () => Float32Array.from({ length: dimension }, () => next() * 2 - 1));
      const flat = new Float32Array(count * dimension);
      rows.forEach((row, i) => flat.set(row, i * dimension));
      const vectors = L2Vectors.of(flat, dimension)!;
      assert.ok(vectors, 'this Node has WebAssembly SIMD');
      for (let q = 0; q < 3; q++) {
        const query = Float32Array.from({ length: dimension }, () => next() * 2 - 1);
        const got = vectors.distances(query);
        assert.equal(got.length, count);
        rows.forEach((row, i) => {
          const want = row.reduce((sum, x, j) => sum + (x - query[j]!) ** 2, 0);
          assert.ok(Math.abs(got[i]! - want) <= 1e-5 * Math.max(1, want), `row ${i}: ${got[i]} vs ${want}`);
        });
      }
    });
  }

  test('each vector in its place; no vectors give no distances', () => {
    const vectors = L2Vectors.of(Float32Array.of(1, 2, 3, 0, 0, 0, 1, 2, 4), 3)!;
    assert.deepEqual([...vectors.distances(Float32Array.of(1, 2, 3))], [0, 14, 1]);
    assert.equal(L2Vectors.of(new Float32Array(0), 3)!.distances(Float32Array.of(1, 2, 3)).length, 0);
  });

  test('what no WebAssembly memory can hold, or is not whole vectors, is refused, not thrown', () => {
    assert.equal(L2Vectors.of(new Float32Array(2 ** 30 + 4), 4), undefined, 'over 4 GiB');
    assert.equal(L2Vectors.of(new Float32Array(10), 0), undefined);
    assert.equal(L2Vectors.of(new Float32Array(10), 3), undefined, '10 floats are not 3-d vectors');
  });
});
