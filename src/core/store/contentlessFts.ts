/**
 * Schema 30 (issue 41, the store's size): the two full-text tables that kept their own copy of the text they index
 * keep none (FTS5 `content=''`). Nothing reads their columns: near copies ask `exchanges_fts` for rowids (copies.ts),
 * the facet layers ask `distilled_fts` for rowids and BM25, which FTS5 reads from its index and size rows. The copies
 * were 9 % of a store at 50K exchanges (docs/benchmarks-log.md).
 *
 * A contentless table forgets a row only when given the text it indexed (FTS5's 'delete'), so the delete triggers
 * give it, from the row that holds that text and from a side table for what no row holds (a row the index does not
 * hold is not 'deleted': that would count its words out of the index's totals):
 * - `exchanges_fts`: the prompt's index text (ftsText.ts, computed in JavaScript) is the stored prompt itself for
 *   most exchanges (83 % of the corpus's); `exchanges_fts_text` holds it for the others (an apostrophe resolved,
 *   Chinese words cut apart).
 * - `distilled_fts`: the headline, detail and search terms are the `distilled` row's; `distilled_facets` holds the
 *   files and rooms facets as indexed (their order and labels as the distiller gave them).
 * Both side tables are written with the full-text rows (exchangeFts.ts, distilledStore.ts) and emptied by the
 * triggers. An exchange's prompt is never updated in place; a distilled row's text may be, and its trigger indexes
 * the new text.
 *
 * The migration indexes the text the old tables held again, in SQL (no transcript, no JavaScript), from temporary
 * copies taken before the old tables are dropped, so the new ones fill the pages the old ones freed and the file does
 * not grow. The pages the copies held beyond that stay free in the file, for the rows to come (docs/benchmarks-log.md
 * says what a VACUUM costs).
 */

const EXCHANGES_FTS = `fts5(prompt, content='', tokenize='porter unicode61')`;
const DISTILLED_FTS = `fts5(core, context, files, rooms, terms, content='', tokenize='porter unicode61')`;

/** The prompt's index text, as `exchanges_fts` was given it, for the exchange `row` (`old`, `new`). */
export const indexedPrompt = (row: string): string =>
  `coalesce((SELECT t.prompt FROM exchanges_fts_text t WHERE t.n = ${row}.n), ${row}.prompt)`;

const TRIGGERS = `
  CREATE TRIGGER exchanges_ad AFTER DELETE ON exchanges BEGIN
    INSERT INTO exchanges_fts(exchanges_fts, rowid, prompt)
      SELECT 'delete', old.n, ${indexedPrompt('old')} WHERE EXISTS (SELECT 1 FROM exchanges_fts_docsize WHERE id = old.n);
    DELETE FROM exchanges_fts_text WHERE n = old.n;
  END;
  CREATE TRIGGER distilled_ad AFTER DELETE ON distilled BEGIN
    INSERT INTO distilled_fts(distilled_fts, rowid, core, context, files, rooms, terms)
      SELECT 'delete', old.exchange_n, old.core, old.context, x.files, x.rooms, old.terms FROM distilled_facets x
      WHERE x.exchange_n = old.exchange_n AND EXISTS (SELECT 1 FROM distilled_fts_docsize WHERE id = old.exchange_n);
    DELETE FROM distilled_facets WHERE exchange_n = old.exchange_n;
  END;
  CREATE TRIGGER distilled_fts_au AFTER UPDATE OF exchange_n, core, context, terms ON distilled BEGIN
    INSERT INTO distilled_fts(distilled_fts, rowid, core, context, files, rooms, terms)
      SELECT 'delete', old.exchange_n, old.core, old.context, x.files, x.rooms, old.terms FROM distilled_facets x
      WHERE x.exchange_n = old.exchange_n AND EXISTS (SELECT 1 FROM distilled_fts_docsize WHERE id = old.exchange_n);
    UPDATE distilled_facets SET exchange_n = new.exchange_n WHERE exchange_n = old.exchange_n;
    INSERT INTO distilled_fts(rowid, core, context, files, rooms, terms)
      SELECT new.exchange_n, new.core, new.context, x.files, x.rooms, new.terms FROM distilled_facets x WHERE x.exchange_n = new.exchange_n;
  END;
`;

export const CONTENTLESS_FTS_SQL = `
  DROP TRIGGER IF EXISTS exchanges_ad;
  DROP TRIGGER IF EXISTS distilled_ad;
  CREATE TEMP TABLE v30_prompts AS
    SELECT f.id AS n, f.c0 AS text, f.c0 IS NOT e.prompt AS other FROM exchanges_fts_content f JOIN exchanges e ON e.n = f.id;
  CREATE TEMP TABLE v30_facets AS
    SELECT f.id AS n, coalesce(f.c2, '') AS files, coalesce(f.c3, '') AS rooms FROM distilled_fts_content f JOIN distilled d ON d.exchange_n = f.id;
  DROP TABLE exchanges_fts;
  DROP TABLE distilled_fts;
  CREATE TABLE exchanges_fts_text (n INTEGER PRIMARY KEY, prompt TEXT NOT NULL);
  INSERT INTO exchanges_fts_text(n, prompt) SELECT n, text FROM temp.v30_prompts WHERE other ORDER BY n;
  CREATE VIRTUAL TABLE exchanges_fts USING ${EXCHANGES_FTS};
  INSERT INTO exchanges_fts(rowid, prompt) SELECT n, text FROM temp.v30_prompts ORDER BY n;
  INSERT INTO exchanges_fts(exchanges_fts) VALUES ('optimize');
  CREATE TABLE distilled_facets (exchange_n INTEGER PRIMARY KEY, files TEXT NOT NULL, rooms TEXT NOT NULL);
  INSERT INTO distilled_facets(exchange_n, files, rooms) SELECT n, files, rooms FROM temp.v30_facets ORDER BY n;
  CREATE VIRTUAL TABLE distilled_fts USING ${DISTILLED_FTS};
  INSERT INTO distilled_fts(rowid, core, context, files, rooms, terms)
    SELECT d.exchange_n, d.core, d.context, x.files, x.rooms, d.terms FROM distilled d JOIN distilled_facets x ON x.exchange_n = d.exchange_n
    ORDER BY d.exchange_n;
  INSERT INTO distilled_fts(distilled_fts) VALUES ('optimize');
  DROP TABLE temp.v30_prompts;
  DROP TABLE temp.v30_facets;
  ${TRIGGERS}
`;
