/**
 * Schema 29: the exchanges still without a token count, in an index of their own (a partial index: empty once every
 * count is in, so it costs a write almost nothing). Every index run asks for them three times (before and after
 * distillation, then the count stage), each time a scan of every exchange's row without it: ~100–270 ms apiece at
 * 40,000 exchanges (1 GB of transcripts), however few had changed. With it, each is a look at an empty index.
 */
export const UNCOUNTED_INDEX_SQL = 'CREATE INDEX IF NOT EXISTS exchanges_uncounted ON exchanges(n) WHERE verbatim_tokens IS NULL;';
