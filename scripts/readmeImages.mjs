// Copies the README's three screenshots from the last UI run (test-results/screenshots/, written by
// test/ui/*.ui.mjs on the fixture workspace) into docs/images/, so they show the UI as the tests last saw it:
// `node test/run.mjs --only ui && node scripts/readmeImages.mjs`, then commit docs/images/.
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** README image ← the UI test's screenshot (the name given to `screenshot(page, name)`). */
export const README_IMAGES = {
  'recall-panel.png': 'recall-candidates.png',
  'exchange-viewer.png': 'recall-exchange-open.png',
  'file-history.png': 'codelens.png',
};

function main() {
  const missing = Object.values(README_IMAGES).filter((shot) => !existsSync(join(ROOT, 'test-results/screenshots', shot)));
  if (missing.length > 0) {
    console.error(`No screenshot ${missing.join(', ')} in test-results/screenshots/: run the UI tests first (node test/run.mjs --only ui).`);
    process.exit(1);
  }
  for (const [image, shot] of Object.entries(README_IMAGES)) {
    copyFileSync(join(ROOT, 'test-results/screenshots', shot), join(ROOT, 'docs/images', image));
    console.log(`docs/images/${image} <- test-results/screenshots/${shot}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
