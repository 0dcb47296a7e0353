// The invented conversations of the sample, oldest first. `file(rel)` gives the absolute path of a
// workspace file (Claude Code records absolute paths in tool inputs). Turn `minutes`: pause before it.
export function SESSIONS({ file, claudeEditResult }) {
  const edit = (rel, oldString, newString, line, summary) => ({
    tool: 'Edit',
    input: { file_path: file(rel), old_string: oldString, new_string: newString },
    result: `The file ${file(rel)} has been updated. ${summary}`,
    toolUseResult: claudeEditResult(file(rel), oldString, newString, line),
  });
  const read = (rel, lines) => ({
    tool: 'Read',
    input: { file_path: file(rel) },
    result: `     1\t${lines}`,
    toolUseResult: { type: 'text', file: { filePath: file(rel), content: lines, numLines: 20, startLine: 1, totalLines: 20 } },
  });
  const bash = (command, output, description) => ({ tool: 'Bash', input: { command, description }, result: output, toolUseResult: { stdout: output, stderr: '', interrupted: false } });

  return [
    {
      agent: 'claude-code', id: '5b1e7f2c-0d9a-4c61-9f3e-2a8b6c4d1e07', daysAgo: 38, hour: 9,
      turns: [
        {
          prompt: 'Set up the Express server for larder: a /health route, JSON bodies, and the recipes router mounted under /recipes. Keep it ESM and TypeScript.',
          steps: [
            { tool: 'Write', input: { file_path: file('src/server.ts'), content: "import express from 'express';\n..." }, result: `File created successfully at: ${file('src/server.ts')}`,
              toolUseResult: { type: 'create', filePath: file('src/server.ts'), content: "import express from 'express';\n..." } },
            bash('npm install express && npm install -D tsx typescript @types/express', 'added 68 packages in 4s', 'Install Express and the TypeScript tooling'),
            { text: 'The server lives in `src/server.ts`: `express.json()` for bodies, `GET /health` answering `{ ok: true }`, and `recipesRouter` mounted at `/recipes`. `npm run dev` starts it with tsx in watch mode on port 3000 (or `$PORT`).' },
          ],
        },
        {
          prompt: 'Now the SQLite layer: recipes, ingredients and shopping list items. Use better-sqlite3 and WAL mode.',
          minutes: 6,
          steps: [
            { tool: 'Write', input: { file_path: file('src/db.ts'), content: "import Database from 'better-sqlite3';\n..." }, result: `File created successfully at: ${file('src/db.ts')}`,
              toolUseResult: { type: 'create', filePath: file('src/db.ts'), content: "import Database from 'better-sqlite3';\n..." } },
            { text: 'I added `src/db.ts` with three tables (`recipes`, `ingredients`, `list_items`), WAL journaling, and the database path from `LARDER_DB` (default `larder.sqlite`). Ingredients reference their recipe; list items carry a `done` flag so checked items sort last.' },
          ],
        },
        {
          prompt: 'Paginate GET /recipes, 20 per page, ordered by title.',
          minutes: 4,
          steps: [
            edit('src/routes/recipes.ts', "  res.json(db.prepare('SELECT * FROM recipes').all());",
              "  const page = Math.max(1, Number(req.query.page ?? 1));\n  res.json(db.prepare('SELECT * FROM recipes ORDER BY title LIMIT 20 OFFSET ?').all((page - 1) * 20));", 8, ''),
            { text: '`GET /recipes?page=N` now returns 20 recipes per page ordered by title; a missing or invalid page falls back to page 1.' },
          ],
        },
      ],
    },
    {
      agent: 'specstory', id: '9c2d4e6f-8a1b-4c3d-9e5f-7a6b8c0d2e41', daysAgo: 33, hour: 14, title: 'Recipe card layout',
      via: 'Agent (model claude-sonnet-4.5, mode Agent)',
      turns: [
        {
          prompt: 'The recipe cards in src/web/RecipeCard.tsx jump around while images load. Can we reserve the space?',
          steps: [
            { tool: 'read_file', result: 'Read src/web/RecipeCard.tsx' },
            { text: 'The jump comes from the `<img>` having no intrinsic size until it loads. I render a placeholder `div.recipe-card__placeholder` when there is no image and gave both an `aspect-ratio: 4 / 3` in the stylesheet, so the card keeps its height. I also added `loading="lazy"` so cards below the fold do not fetch images early.' },
          ],
        },
        {
          prompt: 'Should the whole card be clickable, or just the title?',
          steps: [
            { text: 'For a grid of cards the whole card as a target is friendlier on touch screens, which is what `onClick={onOpen}` on the `<article>` in `src/web/RecipeCard.tsx` does now. For keyboard users it would be better to make the title a real link or button and stretch its hit area over the card with CSS, so focus and screen readers get one clear control.' },
          ],
        },
      ],
    },
    {
      agent: 'aider', daysAgo: 27, hour: 20,
      turns: [
        {
          prompt: 'add unit conversion helpers in src/lib/units.ts: normalise unit names and convert volumes to millilitres',
          steps: [
            { text: 'I will add `normaliseUnit` (lower-case, trims, maps aliases like `tablespoon` to `tbsp`) and `toMillilitres`, which returns `undefined` for units that are not volumes.\n\nsrc/lib/units.ts\n```\nconst TO_ML: Record<string, number> = { ml: 1, l: 1000, tsp: 4.92892, tbsp: 14.7868, cup: 236.588 };\n```' },
            { tool: 'edit', result: 'Applied edit to src/lib/units.ts\nCommit 4c1d2e9 feat: add unit normalisation and volume conversion' },
          ],
        },
        {
          prompt: 'use normaliseUnit when adding items to the shopping list in src/routes/shoppingList.ts',
          steps: [
            { text: 'The POST handler now stores `normaliseUnit(unit)` so "Cups" and "cup" end up as the same unit on the list.\n\nsrc/routes/shoppingList.ts\n```\nconst u = unit ? normaliseUnit(unit) : null;\n```' },
            { tool: 'edit', result: 'Applied edit to src/routes/shoppingList.ts\nCommit 8a7f0b3 feat: normalise units of shopping list items' },
          ],
        },
      ],
    },
    {
      agent: 'claude-code', id: 'e4a9c1d7-3b2f-4e8a-b6c5-1d0f9e8a7b36', daysAgo: 22, hour: 10,
      turns: [
        {
          prompt: 'Everyone gets logged out after every deploy. Sessions should survive a restart. Can you find out why?',
          steps: [
            read('src/auth/session.ts', "import session from 'express-session';"),
            { tool: 'Grep', input: { pattern: 'secret', path: file('src') }, result: `${file('src/auth/session.ts')}:6:  const secret = crypto.randomBytes(32).toString('hex');` },
            { text: 'Found it: `sessionMiddleware` in `src/auth/session.ts` generated a random secret at start-up (`crypto.randomBytes(32)`), so every restart invalidated all session cookies. The secret has to be stable across restarts.' },
          ],
        },
        {
          prompt: 'Read it from SESSION_SECRET then, and refuse to start without it.',
          minutes: 3,
          steps: [
            edit('src/auth/session.ts', "  const secret = crypto.randomBytes(32).toString('hex');",
              "  const secret = process.env.SESSION_SECRET;\n  if (!secret) throw new Error('SESSION_SECRET must be set (sessions would not survive a restart otherwise)');", 6, ''),
            { text: 'Done. The middleware reads `SESSION_SECRET` and throws a clear error at start-up when it is missing. Remember to set it in the deployment environment before the next release, otherwise the server will not start.' },
          ],
        },
        {
          prompt: 'Also make the session cookie last 30 days and not be readable from JavaScript.',
          minutes: 2,
          steps: [
            edit('src/auth/session.ts', "cookie: { sameSite: 'lax' }", "cookie: { httpOnly: true, sameSite: 'lax', maxAge: 30 * 24 * 3600 * 1000 }", 7, ''),
            { text: 'The session cookie is now `httpOnly` with a 30-day `maxAge`; `sameSite: lax` stays so links from other sites still open the app logged in.' },
          ],
        },
      ],
    },
    {
      agent: 'codex', id: '0199d2e1-7c4a-7b20-a1f3-5e6d8c9b0a12', daysAgo: 16, hour: 15,
      turns: [
        {
          prompt: 'Add full-text search over recipe titles and bodies: GET /recipes/search?q=... using SQLite FTS5, best matches first.',
          steps: [
            { tool: 'shell', input: { command: ['bash', '-lc', "rg -n 'CREATE' src/db.ts"] }, result: 'src/db.ts:6:  CREATE TABLE IF NOT EXISTS recipes (...)' },
            { tool: 'apply_patch', input: { patch: "*** Begin Patch\n*** Update File: src/db.ts\n@@\n+  CREATE VIRTUAL TABLE IF NOT EXISTS recipes_fts USING fts5(title, body, content='recipes', content_rowid='id');\n+export function searchRecipes(query: string, limit = 20) { ... }\n*** End Patch" },
              result: 'Success. Updated the following files:\nM src/db.ts' },
            { tool: 'apply_patch', input: { patch: "*** Begin Patch\n*** Update File: src/routes/recipes.ts\n@@\n+recipesRouter.get('/search', (req, res) => res.json(searchRecipes(String(req.query.q ?? ''))));\n*** End Patch" },
              result: 'Success. Updated the following files:\nM src/routes/recipes.ts' },
            { text: 'Search is in: `recipes_fts` is an external-content FTS5 table over `recipes(title, body)` in `src/db.ts`, `searchRecipes` ranks with `bm25()`, and `GET /recipes/search?q=` in `src/routes/recipes.ts` returns the top 20.' },
          ],
        },
        {
          prompt: 'Searching for `chili "con` crashes the route. Make user input safe.',
          minutes: 5,
          steps: [
            { tool: 'apply_patch', input: { patch: "*** Begin Patch\n*** Update File: src/db.ts\n@@\n-  return db.prepare(...).all(query, limit);\n+  const match = query.split(/\\s+/).filter(Boolean).map((t) => '\"' + t.replace(/\"/g, '\"\"') + '\"').join(' OR ');\n*** End Patch" },
              result: 'Success. Updated the following files:\nM src/db.ts' },
            { text: 'FTS5 parsed the raw text as query syntax, and an unbalanced quote is a syntax error. `searchRecipes` now quotes every term (doubling inner quotes) and joins them with OR, so any input is a valid query and natural phrases still match.' },
          ],
        },
      ],
    },
    {
      agent: 'specstory', id: '3f8e1a2b-6c5d-4e7f-8a9b-0c1d2e3f4a58', daysAgo: 11, hour: 11, title: 'Shopping list accessibility',
      via: 'Assistant (copilot/gpt-5)',
      turns: [
        {
          prompt: 'Is the checkbox list in src/web/ShoppingList.tsx accessible? A user with a screen reader said it is confusing.',
          steps: [
            { text: 'Two problems: the list had no accessible name, and the checkbox was not associated with its text, so a screen reader announced "checkbox, not checked" without the item. Wrapping the input and the text in one `<label>` fixes the association, and `aria-label="Shopping list"` on the `<ul>` names the list.' },
          ],
        },
        {
          prompt: 'Apply that, and also read the quantity before the name.',
          steps: [
            { tool: 'edit_file', result: 'Edited src/web/ShoppingList.tsx: label wraps checkbox and text; quantity and unit precede the name.' },
            { text: 'Updated `src/web/ShoppingList.tsx`: each item is now `<label><input type="checkbox"/> 2 cup flour</label>`, announced as "2 cup flour, checkbox, not checked".' },
          ],
        },
      ],
    },
    {
      agent: 'aider', daysAgo: 7, hour: 19,
      turns: [
        {
          prompt: 'adding "flour" twice to the shopping list makes two rows. merge them when name and unit match and the item is not done',
          steps: [
            { text: 'The POST handler in `src/routes/shoppingList.ts` now looks for an open item with the same name (case-insensitive) and unit and adds the quantity to it instead of inserting a new row.\n\nsrc/routes/shoppingList.ts\n```\nconst existing = db.prepare(\'SELECT id FROM list_items WHERE lower(name) = lower(?) AND unit IS ? AND done = 0\').get(name, u);\n```' },
            { tool: 'edit', result: 'Applied edit to src/routes/shoppingList.ts\nCommit b2c4d6e fix: merge duplicate open shopping list items' },
          ],
        },
        {
          prompt: 'what happens if one entry says 1 l milk and the other 500 ml milk?',
          steps: [
            { text: 'They stay separate rows: the merge only matches identical units after `normaliseUnit`. Merging `l` and `ml` would need `toMillilitres` from `src/lib/units.ts` to convert both to one unit first; that works for volumes but not for counts like "2 eggs", so I would only do it when both units are volumes.' },
          ],
        },
      ],
    },
    {
      agent: 'claude-code', id: '7a2b9c4d-1e6f-4a3b-8c7d-5e9f0a1b2c63', daysAgo: 3, hour: 16,
      turns: [
        {
          prompt: 'Scaling a recipe from 3 to 6 servings turns 1/3 cup of sugar into 0.75 cup. That is wrong, it should be 2/3.',
          steps: [
            read('src/lib/units.ts', 'export function scaleQuantity(quantity: number, unit: string, factor: number) {'),
            { text: '`scaleQuantity` in `src/lib/units.ts` rounds every scaled quantity to the nearest quarter: 2/3 ≈ 0.667 becomes 0.75. Kitchen quantities also come in thirds, so rounding should pick whichever of quarters or thirds is closer.' },
          ],
        },
        {
          prompt: 'Yes, do that, and add a test for the 1/3 cup case.',
          minutes: 2,
          steps: [
            edit('src/lib/units.ts', '  return { quantity: Math.round(q * 4) / 4, unit: normaliseUnit(unit) };',
              '  const candidates = [Math.round(q * 4) / 4, Math.round(q * 3) / 3];\n  const best = candidates.reduce((a, b) => (Math.abs(b - q) < Math.abs(a - q) ? b : a));\n  return { quantity: Number(best.toFixed(3)), unit: normaliseUnit(unit) };', 12, ''),
            { tool: 'Write', input: { file_path: file('test/units.test.ts'), content: "import test from 'node:test';\n..." }, result: `File created successfully at: ${file('test/units.test.ts')}`,
              toolUseResult: { type: 'create', filePath: file('test/units.test.ts'), content: "import test from 'node:test';\n..." } },
            bash('npm test', '✔ a third of a cup scaled by 2 stays two thirds (0.6ms)\n✔ units are normalised (0.1ms)\nℹ tests 2\nℹ pass 2\nℹ fail 0', 'Run the tests'),
            { text: 'Fixed: `scaleQuantity` now rounds to the closer of quarters and thirds and keeps three decimals, so 1/3 cup × 2 gives 0.667 cup. `test/units.test.ts` covers that case and unit normalisation; both tests pass.' },
          ],
        },
        {
          prompt: 'Does the ingredients endpoint use this already?',
          minutes: 1,
          steps: [
            read('src/routes/recipes.ts', "import { scaleQuantity } from '../lib/units.js';"),
            { text: 'Yes: `GET /recipes/:id/ingredients?servings=N` in `src/routes/recipes.ts` calls `scaleQuantity` with `servings / recipe.servings` for every ingredient, so the fix applies there without further changes.' },
          ],
        },
      ],
    },
    {
      agent: 'codex', id: '0199e7a3-2b5c-7d40-9e1f-6a8b0c2d4e95', daysAgo: 1, hour: 13,
      turns: [
        {
          prompt: 'Rate-limit POST /login: at most 10 attempts per 15 minutes per IP, with standard RateLimit headers.',
          steps: [
            { tool: 'shell', input: { command: ['bash', '-lc', 'npm install express-rate-limit'] }, result: 'added 1 package in 1s' },
            { tool: 'apply_patch', input: { patch: "*** Begin Patch\n*** Update File: src/auth/session.ts\n@@\n+import rateLimit from 'express-rate-limit';\n+export function loginRoute(): RequestHandler[] {\n+  const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 10, standardHeaders: 'draft-7', legacyHeaders: false });\n*** End Patch" },
              result: 'Success. Updated the following files:\nM src/auth/session.ts' },
            { tool: 'apply_patch', input: { patch: "*** Begin Patch\n*** Update File: src/server.ts\n@@\n-app.post('/login', login);\n+app.post('/login', ...loginRoute());\n*** End Patch" },
              result: 'Success. Updated the following files:\nM src/server.ts' },
            { text: '`loginRoute()` in `src/auth/session.ts` now returns the limiter followed by the handler; `src/server.ts` mounts both on `POST /login`. The 11th attempt within 15 minutes gets HTTP 429 with `RateLimit` and `RateLimit-Policy` headers (draft 7).' },
          ],
        },
        {
          prompt: 'We run behind nginx. Will every user share one IP for the limiter?',
          minutes: 2,
          steps: [
            { text: 'Yes, unless Express trusts the proxy: without `app.set(\'trust proxy\', 1)` in `src/server.ts`, `req.ip` is nginx\'s address and all users share one budget of 10 attempts. Set it to the number of proxies in front of the app (1 for a single nginx), and make sure nginx sets `X-Forwarded-For`.' },
          ],
        },
      ],
    },
    // Later sessions come back to earlier themes (session cookie, full-text search, rate limiting, unit
    // conversion, shopping list), as real work does: the rooms of the tree are themes that recur.
    {
      agent: 'codex', id: '0199f1b4-3c6d-7e50-8a2f-7b9c1d3e5f06', daysAgo: 20, hour: 9,
      turns: [
        {
          prompt: 'The session cookie is not sent from the recipe importer running on another subdomain. What SameSite setting does the session cookie need?',
          steps: [
            { tool: 'shell', input: { command: ['bash', '-lc', 'grep -n cookie src/auth/session.ts'] }, result: "12:  cookie: { httpOnly: true, maxAge: THIRTY_DAYS }" },
            { tool: 'apply_patch', input: { patch: "*** Begin Patch\n*** Update File: src/auth/session.ts\n@@\n-  cookie: { httpOnly: true, maxAge: THIRTY_DAYS }\n+  cookie: { httpOnly: true, maxAge: THIRTY_DAYS, sameSite: 'lax', secure: true, domain: '.larder.app' }\n*** End Patch" },
              result: 'Success. Updated the following files:\nM src/auth/session.ts' },
            { text: 'The session cookie had no `domain`, so the browser kept it to the API host. It now sets `domain: .larder.app`, `sameSite: lax` and `secure`, so the importer on `import.larder.app` sends the session cookie too; `lax` still blocks cross-site POSTs.' },
          ],
        },
      ],
    },
    {
      agent: 'claude-code', id: 'b3c8d2e1-5f4a-4b6c-9d8e-0a1b2c3d4e72', daysAgo: 9, hour: 11,
      turns: [
        {
          prompt: 'Full-text search ranks "tomato soup" below recipes that mention tomato once in a long body. Can the title count more?',
          steps: [
            read('src/routes/search.ts', "import { Router } from 'express';"),
            edit('src/routes/search.ts', 'ORDER BY rank', 'ORDER BY bm25(recipes_fts, 10.0, 1.0)', 14, 'Weighted the title column.'),
            { text: 'Full-text search now orders by `bm25(recipes_fts, 10.0, 1.0)`: a match in the title weighs ten times a match in the body, so "tomato soup" comes first. The FTS5 query and the quoting of user input are unchanged.' },
          ],
        },
        {
          prompt: 'And show a snippet of the matching text under each full-text search result.',
          minutes: 4,
          steps: [
            edit('src/routes/search.ts', 'SELECT id, title', "SELECT id, title, snippet(recipes_fts, 1, '<mark>', '</mark>', '…', 12) AS snippet", 9, 'Added the snippet column.'),
            { text: 'Each search result carries `snippet`, twelve tokens of the body around the match with `<mark>` around the matched words, from FTS5\'s `snippet()`; the web client escapes the text before adding the marks.' },
          ],
        },
      ],
    },
    {
      agent: 'specstory', id: '5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e93', daysAgo: 5, hour: 15, title: 'Unit conversion for imports',
      turns: [
        {
          prompt: 'Imported recipes use ounces and pounds. Does our unit conversion in src/lib/units.ts handle weights, or only volumes?',
          steps: [
            { text: 'Only volumes: the unit conversion in `src/lib/units.ts` maps cups, tablespoons and litres to millilitres, and `normaliseUnit` knows no weights. Ounces and pounds need a second table to grams (1 oz = 28.35 g, 1 lb = 453.6 g), and conversion must refuse to turn a weight into a volume.' },
          ],
        },
        {
          prompt: 'Add the weight table to the unit conversion and refuse mixed conversions.',
          steps: [
            { text: 'Done: `src/lib/units.ts` has a `WEIGHTS` table in grams next to `VOLUMES`, and `convert()` throws `UnitMismatchError` when asked to turn grams into millilitres. The shopping list keeps weight and volume rows of one ingredient apart.' },
          ],
        },
      ],
    },
    {
      agent: 'claude-code', id: 'c9d0e1f2-a3b4-4c5d-8e6f-7a8b9c0d1e84', daysAgo: 0, hour: 10,
      turns: [
        {
          prompt: 'The rate limiting on /login counts per process; with two instances a user gets 20 attempts. Can the rate limiting share its counts?',
          steps: [
            read('src/auth/session.ts', "import rateLimit from 'express-rate-limit';"),
            edit('src/auth/session.ts', 'const limiter = rateLimit({', 'const limiter = rateLimit({ store: new SqliteStore(db),', 22, 'The limiter counts in SQLite.'),
            { text: 'Rate limiting now keeps its counts in the shared SQLite database (`SqliteStore` over a `rate_limits` table), so both instances see the same 10 attempts per 15 minutes. Expired windows are deleted on each hit.' },
          ],
        },
        {
          prompt: 'Does the shopping list endpoint need rate limiting too?',
          minutes: 3,
          steps: [
            { text: 'No: the shopping list routes need a session, so abuse is bounded by login, and rate limiting them would mostly slow down the checkbox clicks in `src/web/ShoppingList.tsx`. Keep rate limiting on `/login` and the public full-text search.' },
          ],
        },
      ],
    },
    // The agents that run inside the editor or beside it write their own formats (test/host/transcripts.mjs).
    {
      agent: 'copilot', id: '4e7a1c2b-9d3f-4b5e-a6c8-0f1e2d3c4b57', daysAgo: 14, hour: 16,
      turns: [
        {
          prompt: 'Checking one item re-renders the whole shopping list in ShoppingList.tsx. Can the rows be memoised?',
          steps: [
            { tool: 'read_file', input: { filePath: file('src/web/ShoppingList.tsx'), startLine: 1, endLine: 17 }, result: 'type Item = { id: number; name: string; quantity: number | null; unit: string | null; done: boolean };' },
            { tool: 'replace_string_in_file', input: { filePath: file('src/web/ShoppingList.tsx'), oldString: 'function Row(', newString: 'const Row = memo(function Row(' },
              result: 'The file was edited.', edit: { path: file('src/web/ShoppingList.tsx'), line: 3, text: "import { memo, useCallback } from 'react';\n" } },
            { text: 'Each row is now a `memo` component (`Row`), and `ShoppingList` passes `onToggle` through `useCallback`, so checking an item re-renders that row and the counter only. Before, every row got a new `onToggle` function on each render, which defeats `memo`.' },
          ],
        },
        {
          prompt: 'Does memo still help if the items array is rebuilt after every fetch?',
          minutes: 3,
          steps: [
            { text: 'Yes, as long as the item objects keep their identity when nothing changed. `memo` compares props shallowly: a refetch that builds new objects for every item re-renders every row. The list hook now keeps the previous object when `id`, `done`, `quantity` and `unit` are equal, so a refetch only re-renders rows that changed.' },
          ],
        },
      ],
    },
    {
      agent: 'continue', id: '8b3c5d7e-1f2a-4c4e-9b6d-2a3c4e5f6a71', daysAgo: 12, hour: 9, title: 'Session store for production',
      turns: [
        {
          prompt: 'Where does express-session keep sessions right now, and is that fine in production?',
          context: [{ name: 'session.ts', description: 'src/auth/session.ts', content: "import session from 'express-session';", uri: { type: 'file', value: file('src/auth/session.ts') } }],
          steps: [
            { tool: 'read_file', input: { filepath: 'src/auth/session.ts' }, result: "export function sessionMiddleware() { return session({ secret: process.env.SESSION_SECRET!, resave: false, saveUninitialized: false }); }" },
            { text: 'No store is configured, so express-session uses its default MemoryStore: sessions live in the process, are lost on every restart, and the store leaks memory because it never prunes expired sessions. For production put them in the SQLite database you already have, e.g. `better-sqlite3-session-store` with `expired.clear` on, so both instances share them and they survive deploys.' },
          ],
        },
      ],
    },
    {
      agent: 'gemini', id: '2c9e4a6b-8d1f-4e3a-b5c7-9d0e1f2a3b48', daysAgo: 6, hour: 17,
      turns: [
        {
          prompt: 'Does the README still say how to run the tests? Update it if not.',
          steps: [
            { tool: 'read_file', input: { absolute_path: file('README.md') }, result: '# larder\n\nRecipes and a shared shopping list for a household.' },
            { tool: 'replace', input: { file_path: file('README.md'), old_string: '- `src/web/` — React components', new_string: '- `src/web/` — React components\n\n`npm test` runs the unit tests (node:test with tsx).' }, result: 'Successfully modified file: README.md (1 replacements).' },
            { text: 'It did not: the README listed the source folders only. I added that `npm test` runs the unit tests with node:test through tsx, the same runner `package.json` defines.' },
          ],
        },
        {
          prompt: 'Also document SESSION_SECRET and LARDER_DB there.',
          minutes: 2,
          steps: [
            { tool: 'replace', input: { file_path: file('README.md'), old_string: '`npm test` runs', new_string: 'Environment: `SESSION_SECRET` (required, signs the session cookie), `LARDER_DB` (database path, default `larder.sqlite`).\n\n`npm test` runs' }, result: 'Successfully modified file: README.md (1 replacements).' },
            { text: 'The README now has an Environment section: `SESSION_SECRET` is required (the server refuses to start without it, since the session fix) and `LARDER_DB` picks the SQLite file, `larder.sqlite` by default.' },
          ],
        },
      ],
    },
    {
      agent: 'cline', daysAgo: 4, hour: 14, visible: ['src/lib/units.ts'],
      turns: [
        {
          prompt: 'The recipe importer gets quantities as one string like "8 oz" or "1 1/2 cups". Add a parseQuantity to src/lib/units.ts that returns amount and unit.',
          steps: [
            { tool: 'read_file', input: { path: 'src/lib/units.ts' }, result: 'const TO_ML: Record<string, number> = { ml: 1, l: 1000, tsp: 4.92892, tbsp: 14.7868, cup: 236.588 };', why: 'Read the unit helpers first.' },
            { tool: 'replace_in_file', input: { path: 'src/lib/units.ts', diff: '------- SEARCH\nexport function normaliseUnit\n=======\nexport function parseQuantity(text: string): { amount: number; unit: string } { ... }\n\nexport function normaliseUnit\n+++++++ REPLACE' }, result: 'The content was successfully saved to src/lib/units.ts.', why: 'Add the parser beside normaliseUnit.' },
            { text: 'parseQuantity in src/lib/units.ts splits a leading amount from the unit: whole numbers, decimals, fractions ("1/3") and mixed numbers ("1 1/2") become a number, and the rest goes through normaliseUnit, so "8 oz" gives { amount: 8, unit: "oz" } and "1 1/2 cups" gives { amount: 1.5, unit: "cup" }.' },
          ],
        },
        {
          prompt: 'What does it do with "a pinch of salt"?',
          minutes: 4,
          steps: [
            { text: 'It returns null: there is no leading amount, so parseQuantity does not guess. The importer keeps such lines as free text on the ingredient, with quantity and unit left empty, which the shopping list already shows as the name alone.' },
          ],
        },
      ],
    },
    // a legacy Kilo Code task (the extension's task folder) and a Kiro IDE session with its execution logs
    {
      agent: 'kilo', daysAgo: 10, hour: 15, visible: ['src/routes/shoppingList.ts'],
      turns: [
        {
          prompt: 'Two people ticking the same shopping list item at once sometimes un-tick it. Can the PATCH in src/routes/shoppingList.ts be made idempotent?',
          steps: [
            { tool: 'read_file', input: { path: 'src/routes/shoppingList.ts' }, result: "shoppingListRouter.patch('/:id', (req, res) => { db.prepare('UPDATE list_items SET done = NOT done WHERE id = ?').run(req.params.id); ... })", why: 'See how the PATCH toggles done.' },
            { tool: 'apply_diff', input: { path: 'src/routes/shoppingList.ts', diff: "<<<<<<< SEARCH\nSET done = NOT done WHERE id = ?').run(req.params.id)\n=======\nSET done = ? WHERE id = ?').run(req.body.done ? 1 : 0, req.params.id)\n>>>>>>> REPLACE" }, result: 'Changes applied to src/routes/shoppingList.ts.', why: 'Send the wanted state instead of toggling.' },
            { text: 'The PATCH toggled `done` with `SET done = NOT done`, so two clicks arriving together cancelled each other. It now takes the wanted state from the body (`{ done: true }`) and sets it, so repeating the request changes nothing; `ShoppingList.tsx` sends the checkbox state it shows.' },
          ],
        },
      ],
    },
    {
      agent: 'kiro', id: 'e7f8a9b0-c1d2-4e3f-8a4b-5c6d7e8f9a01', daysAgo: 8, hour: 10, title: 'Scaling recipes with cups',
      turns: [
        {
          prompt: 'Scaling a recipe that uses 1/3 cup by 1.5 gives 0.5 cup but the card shows 0.4999. Where does that come from?',
          steps: [
            { tool: 'readCode', input: { file: 'src/lib/units.ts' } },
            { text: 'scaleQuantity rounds to the nearest quarter or third, but the card formats the raw product `quantity * factor` before rounding. Formatting the value scaleQuantity returns (0.5) shows "1/2 cup"; the 0.4999 is floating-point error from 0.3333 * 1.5.' },
          ],
        },
        {
          prompt: 'Show thirds and quarters as fractions on the card, and whole numbers without decimals.',
          minutes: 5,
          steps: [
            { tool: 'replace', input: { file: 'src/web/RecipeCard.tsx', modifiedContent: 'formatQuantity(scaled.quantity)' } },
            { text: 'RecipeCard now shows quantities through `formatQuantity`: whole numbers without decimals, and quarters and thirds as fractions ("1 1/2 cups", "2/3 tsp"); other values keep one decimal.' },
          ],
        },
      ],
    },
    {
      agent: 'copilot', id: '6f1b3d5a-7c9e-4a2b-8d4f-1e3a5c7b9d20', daysAgo: 2, hour: 11,
      turns: [
        {
          prompt: 'GET /list is slow with a long shopping list. Does list_items need an index?',
          steps: [
            { tool: 'read_file', input: { filePath: file('src/db.ts'), startLine: 1, endLine: 15 }, result: 'CREATE TABLE list_items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, quantity REAL, unit TEXT, done INTEGER NOT NULL DEFAULT 0, position INTEGER)' },
            { tool: 'replace_string_in_file', input: { filePath: file('src/db.ts'), oldString: 'CREATE TABLE list_items', newString: 'CREATE INDEX IF NOT EXISTS list_items_order ON list_items(done, position);\nCREATE TABLE list_items' },
              result: 'The file was edited.', edit: { path: file('src/db.ts'), line: 9, text: 'CREATE INDEX IF NOT EXISTS list_items_order ON list_items(done, position);\n' } },
            { text: 'Yes: `GET /list` orders by `done, position`, and without an index SQLite sorts the whole table on every request. I added `list_items_order ON list_items(done, position)` in `src/db.ts`; the query plan now reads the index in order instead of using a temporary B-tree.' },
          ],
        },
      ],
    },
    {
      agent: 'copilot-cli', id: 'd2f4a6c8-0b1e-4d3f-9a5c-7e9b1d3f5a62', daysAgo: 24, hour: 14, title: 'Close the database on shutdown',
      turns: [
        {
          prompt: 'Deploys sometimes leave larder.sqlite-wal behind and the next start is slow. Close the database cleanly when the server gets SIGTERM.',
          steps: [
            { tool: 'view', input: { path: file('src/server.ts'), view_range: [1, 14] }, result: "1. import express from 'express';\n...\n13. app.listen(Number(process.env.PORT ?? 3000), () => console.log('larder listening'));" },
            { tool: 'edit', input: { path: file('src/server.ts'), old_str: "app.listen(Number(process.env.PORT ?? 3000), () => console.log('larder listening'));",
              new_str: "const server = app.listen(Number(process.env.PORT ?? 3000), () => console.log('larder listening'));\nprocess.on('SIGTERM', () => server.close(() => { db.close(); process.exit(0); }));" },
              result: `File ${file('src/server.ts')} updated with changes.`,
              diff: { line: 13, old: "app.listen(Number(process.env.PORT ?? 3000), () => console.log('larder listening'));",
                new: "const server = app.listen(Number(process.env.PORT ?? 3000), () => console.log('larder listening'));\nprocess.on('SIGTERM', () => server.close(() => { db.close(); process.exit(0); }));" } },
            { text: 'On SIGTERM `src/server.ts` now stops accepting connections, waits for the open requests, then calls `db.close()`, which checkpoints the WAL into larder.sqlite and removes larder.sqlite-wal before the process exits.' },
          ],
        },
        {
          prompt: 'Does a second SIGTERM during that wait do anything bad?',
          minutes: 3,
          steps: [
            { tool: 'bash', input: { command: 'grep -n "SIGTERM" src/server.ts', description: 'Find the signal handler' }, result: "14:process.on('SIGTERM', () => server.close(() => { db.close(); process.exit(0); }));" },
            { text: 'It calls `server.close` again, which only reports that the server is already closing; `db.close()` still runs once, from the first callback. If the orchestrator escalates to SIGKILL the WAL stays behind, but SQLite replays it on the next start, so no data is lost.' },
          ],
        },
      ],
    },
    {
      agent: 'qwen-code', id: 'f5a7c9e1-3b5d-4f7a-8c9e-1b3d5f7a9c24', daysAgo: 10, hour: 10, title: 'Reorder the shopping list',
      turns: [
        {
          prompt: 'Users want to drag shopping list items into their own order. Add a position to list items and a PATCH /list/:id/position route.',
          steps: [
            { tool: 'read_file', input: { absolute_path: file('src/routes/shoppingList.ts') }, result: "shoppingListRouter.get('/', (_req, res) => res.json(db.prepare('SELECT * FROM list_items ORDER BY done, id').all()));" },
            { tool: 'edit', input: { file_path: file('src/routes/shoppingList.ts'), old_string: "ORDER BY done, id", new_string: "ORDER BY done, position, id" },
              result: `The file: ${file('src/routes/shoppingList.ts')} has been updated.`, diff: { line: 6, old: "shoppingListRouter.get('/', (_req, res) => res.json(db.prepare('SELECT * FROM list_items ORDER BY done, id').all()));", new: "shoppingListRouter.get('/', (_req, res) => res.json(db.prepare('SELECT * FROM list_items ORDER BY done, position, id').all()));" } },
            { text: 'List items get a `position` column (set to the id for existing rows), `GET /list` orders by `done, position, id`, and `PATCH /list/:id/position` with `{ position }` moves one item; done items still sort last.' },
          ],
        },
        {
          prompt: 'What happens to positions when an item is deleted? Do we need to renumber?',
          minutes: 4,
          steps: [
            { text: 'No renumbering is needed: positions only have to sort, not be contiguous, so a deleted item just leaves a gap. The PATCH route places a moved item between its new neighbours, so the list keeps its order without touching the other rows.' },
          ],
        },
      ],
    },
    {
      agent: 'amp', id: 'T-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', daysAgo: 8, hour: 15, title: 'Strip scripts from imported recipes',
      turns: [
        {
          prompt: 'Imported recipe bodies can contain HTML with <script> tags, and RecipeCard renders the body. Sanitise the body when a recipe is saved.',
          steps: [
            { tool: 'Read', input: { path: file('src/routes/recipes.ts'), read_range: [1, 20] }, result: "recipesRouter.post('/', (req, res) => { const { title, servings, body } = req.body; ... })" },
            { tool: 'edit_file', input: { path: file('src/routes/recipes.ts'), old_str: 'const { title, servings, body } = req.body;', new_str: 'const { title, servings } = req.body;\n  const body = sanitizeHtml(String(req.body.body ?? \'\'), { allowedTags: [\'p\', \'ul\', \'ol\', \'li\', \'strong\', \'em\'] });' },
              result: 'ok', diff: { line: 12, old: '  const { title, servings, body } = req.body;', new: "  const { title, servings } = req.body;\n  const body = sanitizeHtml(String(req.body.body ?? ''), { allowedTags: ['p', 'ul', 'ol', 'li', 'strong', 'em'] });" } },
            { tool: 'Bash', input: { cmd: 'npm test' }, result: 'tests 9, pass 9, fail 0' },
            { text: '`POST /recipes` in `src/routes/recipes.ts` now runs the body through `sanitizeHtml`, keeping only paragraphs, lists and emphasis; scripts, styles and event attributes are dropped before the recipe is stored. All 9 tests pass.' },
          ],
        },
      ],
    },
    {
      agent: 'kimi', id: 'session_3c5e7a9b-1d2f-4a6c-8e0b-2d4f6a8c0e13', daysAgo: 6, hour: 11, title: 'Index the ingredients by recipe',
      turns: [
        {
          prompt: 'The ingredients endpoint takes almost a second for a recipe once the table has 50,000 rows. Why, and can we fix it without changing the API?',
          steps: [
            { tool: 'Read', input: { path: file('src/db.ts'), line_offset: 5, n_lines: 6 }, result: '     8\t  CREATE TABLE IF NOT EXISTS ingredients (recipe_id INTEGER REFERENCES recipes(id), name TEXT, quantity REAL, unit TEXT);' },
            { tool: 'Edit', input: { path: file('src/db.ts'), old_string: "  CREATE TABLE IF NOT EXISTS list_items", new_string: "  CREATE INDEX IF NOT EXISTS ingredients_by_recipe ON ingredients(recipe_id);\n  CREATE TABLE IF NOT EXISTS list_items" }, result: `Replaced 1 occurrence in ${file('src/db.ts')}` },
            { tool: 'Bash', input: { command: 'npm test' }, result: 'tests 9, pass 9, fail 0' },
            { text: '`GET /recipes/:id/ingredients` filters `ingredients` on `recipe_id`, which had no index, so SQLite scanned all 50,000 rows per request. `src/db.ts` now creates `ingredients_by_recipe ON ingredients(recipe_id)`; the lookup becomes an index search and the API is unchanged. All 9 tests pass.' },
          ],
        },
      ],
    },
    {
      agent: 'junie', id: 'session-260104-153000-lrdr', daysAgo: 4, hour: 15, title: 'Reject unknown units on the shopping list',
      turns: [
        {
          prompt: 'POST /list accepts any unit string, so the list fills up with "gramms" and "pcs." duplicates. Reject units normaliseUnit does not know with a 400.',
          steps: [
            { tool: 'view', input: { path: file('src/routes/shoppingList.ts'), lines: [9, 16] }, result: '' },
            { tool: 'change', input: { path: file('src/routes/shoppingList.ts'), before: '  const u = unit ? normaliseUnit(unit) : null;\n', after: "  const u = unit ? normaliseUnit(unit) : null;\n  if (unit && !u) return res.status(400).json({ error: `unknown unit ${unit}` });\n" }, result: '' },
            { tool: 'terminal', input: { command: 'npm test' }, result: 'tests 10, pass 10, fail 0' },
            { text: '`POST /list` in `src/routes/shoppingList.ts` now answers 400 with `unknown unit <unit>` when `normaliseUnit` returns nothing for the unit given; items without a unit are still accepted. I added a test for "gramms"; all 10 tests pass.' },
          ],
        },
      ],
    },
    {
      agent: 'openhands', id: '9f1b3d5e7a2c4e6f8a0b2c4d6e8f0a1b', daysAgo: 3, hour: 10, title: 'Search recipes by ingredient',
      turns: [
        {
          prompt: 'Searching for "basil" does not find recipes that only list basil as an ingredient. Make /recipes/search look at ingredient names too.',
          steps: [
            { tool: 'file_editor', input: { command: 'view', path: file('src/db.ts'), view_range: [13, 16] }, result: "    13\texport function searchRecipes(query: string, limit = 20) {" },
            { tool: 'file_editor', input: { command: 'str_replace', path: file('src/db.ts'), old_str: "WHERE recipes_fts MATCH ? ORDER BY bm25(recipes_fts) LIMIT ?').all(match, limit);",
              new_str: "WHERE recipes_fts MATCH ? UNION SELECT r.* FROM recipes r JOIN ingredients i ON i.recipe_id = r.id WHERE i.name LIKE ? LIMIT ?').all(match, `%${query}%`, limit);" },
              result: `The file ${file('src/db.ts')} has been edited.` },
            { tool: 'terminal', input: { command: 'npm test' }, result: 'tests 10, pass 10, fail 0' },
            { text: '`searchRecipes` in `src/db.ts` now also returns recipes with an ingredient whose name contains the query (a `LIKE` on `ingredients.name`, joined to `recipes`), so "basil" finds the pesto that only lists it as an ingredient. Full-text matches on title and body are still included; all 10 tests pass.' },
          ],
        },
      ],
    },
  ];
}
