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
      known.set(key, value);
    }
    return value as T;
  };
}
