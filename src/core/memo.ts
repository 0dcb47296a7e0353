/**
 * `fn` remembered by its argument, for the pure functions indexing and search call over and over on the same
 * words (a transcript repeats its vocabulary). At most `max` answers are kept: when full, the memory starts over,
 * which bounds it at no bookkeeping cost per call.
 */
export function memoize<T>(fn: (key: string) => T, max: number): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined && !known.has(key)) {
      if (known.size >= max) known.clear();
      value = fn(key);
      if (typeof value === 'string') value = detached(value) as T;
      known.set(detached(key), value);
    }
    return value as T;
  };
}

/**
 * A copy of `text` that keeps nothing else alive, for a string a memory holds on to. V8 makes a string cut from a
 * longer one (a word a pattern matched in a transcript) a view of that whole text: a map of 100,000 such words
 * kept whole transcripts in an index worker's heap (+130 MB over 45 batches of a 250 MB history). Short strings
 * are copies already.
 */
export function detached(text: string): string {
  return text.length < 13 ? text : (' ' + text).slice(1);
}
