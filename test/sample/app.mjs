// The files of the sample workspace: "larder", a small invented recipe and shopping-list web app
// (Express + SQLite API, a few React components). The sample transcripts talk about these files.
export const APP_FILES = {
  'package.json': JSON.stringify(
    {
      name: 'larder',
      version: '0.3.0',
      private: true,
      type: 'module',
      scripts: { dev: 'tsx watch src/server.ts', test: 'node --test --import tsx test/' },
      dependencies: { express: '^4.21.0', 'better-sqlite3': '^11.5.0', 'express-session': '^1.18.0', 'express-rate-limit': '^7.4.0' },
      devDependencies: { tsx: '^4.19.0', typescript: '^5.6.0', '@types/express': '^5.0.0' },
    },
    null,
    2,
  ) + '\n',
  // the editor reads the sample as a TypeScript project: with these it shows no errors in the Problems panel
  'tsconfig.json': `{
  "compilerOptions": { "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "strict": true, "jsx": "preserve", "noEmit": true, "types": [] },
  "include": ["src", "test", "types"]
}
`,
  'types/vendor.d.ts': `// The sample is never installed (it has no node_modules): these stand in for its dependencies' types, only as
// far as its code uses them, so the editor shows what a real project shows: no errors.
declare module 'express' {
  export interface Request { body: any; params: Record<string, string>; query: Record<string, string | undefined>; session?: unknown }
  export interface Response { json(body: unknown): Response; status(code: number): Response; end(): void; set(name: string, value: string): Response }
  export type RequestHandler = (req: Request, res: Response, next: () => void) => void;
  export interface Router { get(path: string, ...handlers: RequestHandler[]): Router; post(path: string, ...handlers: RequestHandler[]): Router; patch(path: string, ...handlers: RequestHandler[]): Router; delete(path: string, ...handlers: RequestHandler[]): Router }
  export function Router(): Router;
  interface App extends Router { use(...args: unknown[]): App; listen(port: number, ready?: () => void): { close(done?: () => void): void } }
  function express(): App;
  namespace express { function json(): RequestHandler }
  export default express;
}
declare module 'express-session' {
  export default function session(options: Record<string, unknown>): import('express').RequestHandler;
}
declare module 'express-rate-limit' {
  export default function rateLimit(options: Record<string, unknown>): import('express').RequestHandler;
}
declare module 'better-sqlite3' {
  interface Statement { all(...params: unknown[]): unknown[]; get(...params: unknown[]): unknown; run(...params: unknown[]): { changes: number } }
  export default class Database {
    constructor(file: string);
    pragma(statement: string): unknown;
    exec(sql: string): void;
    prepare(sql: string): Statement;
    close(): void;
  }
}
declare module 'node:test' {
  export default function test(name: string, fn: () => void | Promise<void>): void;
}
declare module 'node:assert/strict' {
  const assert: { equal(actual: unknown, expected: unknown, message?: string): void; deepEqual(actual: unknown, expected: unknown, message?: string): void; ok(value: unknown, message?: string): void };
  export default assert;
}
declare const process: { env: Record<string, string | undefined>; on(event: string, listener: () => void): void; exit(code?: number): never };
declare namespace JSX {
  interface IntrinsicElements { [element: string]: Record<string, unknown> }
}
`,
  'README.md': `# larder

Recipes and a shared shopping list for a household. \`npm run dev\` serves the API on :3000 and the web UI.

- \`src/server.ts\` — Express app, session middleware, routes
- \`src/db.ts\` — SQLite schema and queries (recipes, ingredients, list items, FTS5 search)
- \`src/routes/\` — \`recipes.ts\`, \`shoppingList.ts\`
- \`src/auth/session.ts\` — login, sessions, rate limit
- \`src/lib/units.ts\` — unit conversion and scaling of quantities
- \`src/web/\` — React components
`,
  'src/server.ts': `import express from 'express';
import { sessionMiddleware, loginRoute } from './auth/session.js';
import { recipesRouter } from './routes/recipes.js';
import { shoppingListRouter } from './routes/shoppingList.js';

const app = express();
app.use(express.json());
app.use(sessionMiddleware());
app.get('/health', (_req, res) => res.json({ ok: true }));
app.post('/login', ...loginRoute());
app.use('/recipes', recipesRouter);
app.use('/list', shoppingListRouter);

app.listen(Number(process.env.PORT ?? 3000), () => console.log('larder listening'));
`,
  'src/db.ts': `import Database from 'better-sqlite3';

export const db = new Database(process.env.LARDER_DB ?? 'larder.sqlite');
db.pragma('journal_mode = WAL');
db.exec(\`
  CREATE TABLE IF NOT EXISTS recipes (id INTEGER PRIMARY KEY, title TEXT NOT NULL, servings INTEGER NOT NULL, body TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS ingredients (recipe_id INTEGER REFERENCES recipes(id), name TEXT, quantity REAL, unit TEXT);
  CREATE TABLE IF NOT EXISTS list_items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, quantity REAL, unit TEXT, done INTEGER DEFAULT 0);
  CREATE VIRTUAL TABLE IF NOT EXISTS recipes_fts USING fts5(title, body, content='recipes', content_rowid='id');
\`);

export function searchRecipes(query: string, limit = 20) {
  const match = query.split(/\\s+/).filter(Boolean).map((t) => '"' + t.replace(/"/g, '""') + '"').join(' OR ');
  return db.prepare('SELECT r.* FROM recipes_fts f JOIN recipes r ON r.id = f.rowid WHERE recipes_fts MATCH ? ORDER BY bm25(recipes_fts) LIMIT ?').all(match, limit);
}
`,
  'src/routes/recipes.ts': `import { Router } from 'express';
import { db, searchRecipes } from '../db.js';
import { scaleQuantity } from '../lib/units.js';

export const recipesRouter = Router();

recipesRouter.get('/', (req, res) => {
  const page = Math.max(1, Number(req.query.page ?? 1));
  res.json(db.prepare('SELECT * FROM recipes ORDER BY title LIMIT 20 OFFSET ?').all((page - 1) * 20));
});

recipesRouter.get('/search', (req, res) => res.json(searchRecipes(String(req.query.q ?? ''))));

recipesRouter.get('/:id/ingredients', (req, res) => {
  const recipe = db.prepare('SELECT servings FROM recipes WHERE id = ?').get(req.params.id) as { servings: number } | undefined;
  if (!recipe) return res.status(404).end();
  const servings = Number(req.query.servings ?? recipe.servings);
  const rows = db.prepare('SELECT name, quantity, unit FROM ingredients WHERE recipe_id = ?').all(req.params.id) as { name: string; quantity: number; unit: string }[];
  res.json(rows.map((r) => ({ ...r, ...scaleQuantity(r.quantity, r.unit, servings / recipe.servings) })));
});
`,
  'src/routes/shoppingList.ts': `import { Router } from 'express';
import { db } from '../db.js';
import { normaliseUnit } from '../lib/units.js';

export const shoppingListRouter = Router();

shoppingListRouter.get('/', (_req, res) => res.json(db.prepare('SELECT * FROM list_items ORDER BY done, name').all()));

shoppingListRouter.post('/', (req, res) => {
  const { name, quantity, unit } = req.body as { name: string; quantity?: number; unit?: string };
  const u = unit ? normaliseUnit(unit) : null;
  const existing = db.prepare('SELECT id FROM list_items WHERE lower(name) = lower(?) AND unit IS ? AND done = 0').get(name, u) as { id: number } | undefined;
  if (existing) db.prepare('UPDATE list_items SET quantity = quantity + ? WHERE id = ?').run(quantity ?? 0, existing.id);
  else db.prepare('INSERT INTO list_items (name, quantity, unit) VALUES (?, ?, ?)').run(name, quantity ?? null, u);
  res.status(201).end();
});
`,
  'src/auth/session.ts': `import session from 'express-session';
import rateLimit from 'express-rate-limit';
import type { RequestHandler } from 'express';

export function sessionMiddleware(): RequestHandler {
  const secret = process.env.SESSION_SECRET;
  if (!secret) throw new Error('SESSION_SECRET must be set (sessions would not survive a restart otherwise)');
  return session({ secret, resave: false, saveUninitialized: false, cookie: { httpOnly: true, sameSite: 'lax', maxAge: 30 * 24 * 3600 * 1000 } });
}

export function loginRoute(): RequestHandler[] {
  const limiter = rateLimit({ windowMs: 15 * 60 * 1000, limit: 10, standardHeaders: 'draft-7', legacyHeaders: false });
  return [limiter, (req, res) => {
    // password check elided in the sample
    (req.session as unknown as { user?: string }).user = String(req.body?.user ?? '');
    res.status(204).end();
  }];
}
`,
  'src/lib/units.ts': `const TO_ML: Record<string, number> = { ml: 1, l: 1000, tsp: 4.92892, tbsp: 14.7868, cup: 236.588 };
const ALIASES: Record<string, string> = { teaspoon: 'tsp', tablespoon: 'tbsp', cups: 'cup', litre: 'l', liter: 'l' };

export function normaliseUnit(unit: string): string {
  const u = unit.trim().toLowerCase();
  return ALIASES[u] ?? u;
}

/** Scales a quantity and rounds to a kitchen-friendly fraction (quarters, thirds). */
export function scaleQuantity(quantity: number, unit: string, factor: number): { quantity: number; unit: string } {
  const q = quantity * factor;
  const candidates = [Math.round(q * 4) / 4, Math.round(q * 3) / 3];
  const best = candidates.reduce((a, b) => (Math.abs(b - q) < Math.abs(a - q) ? b : a));
  return { quantity: Number(best.toFixed(3)), unit: normaliseUnit(unit) };
}

export function toMillilitres(quantity: number, unit: string): number | undefined {
  const f = TO_ML[normaliseUnit(unit)];
  return f === undefined ? undefined : quantity * f;
}
`,
  'src/web/RecipeCard.tsx': `type Props = { title: string; servings: number; imageUrl?: string; onOpen(): void };

export function RecipeCard({ title, servings, imageUrl, onOpen }: Props) {
  return (
    <article className="recipe-card" onClick={onOpen}>
      {imageUrl ? <img src={imageUrl} alt="" loading="lazy" /> : <div className="recipe-card__placeholder" />}
      <h3>{title}</h3>
      <p>{servings} servings</p>
    </article>
  );
}
`,
  'src/web/ShoppingList.tsx': `type Item = { id: number; name: string; quantity: number | null; unit: string | null; done: boolean };

export function ShoppingList({ items, onToggle }: { items: Item[]; onToggle(id: number): void }) {
  return (
    <ul className="shopping-list" aria-label="Shopping list">
      {items.map((i) => (
        <li key={i.id}>
          <label>
            <input type="checkbox" checked={i.done} onChange={() => onToggle(i.id)} />
            {i.quantity ? \`\${i.quantity} \${i.unit ?? ''} \` : ''}{i.name}
          </label>
        </li>
      ))}
    </ul>
  );
}
`,
  'test/units.test.ts': `import test from 'node:test';
import assert from 'node:assert/strict';
import { scaleQuantity } from '../src/lib/units.js';

test('a third of a cup scaled by 2 stays two thirds', () => {
  assert.deepEqual(scaleQuantity(1 / 3, 'cup', 2), { quantity: 0.667, unit: 'cup' });
});

test('units are normalised', () => {
  assert.equal(scaleQuantity(1, 'Tablespoon', 1).unit, 'tbsp');
});
`,
};
