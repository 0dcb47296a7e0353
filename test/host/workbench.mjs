// Opens code-server's web workbench in Debian's Chromium, driven by playwright-core.
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/**
 * The workbench URL for `folder`. `payload` entries (e.g. extensionDevelopmentPath) are paths on the
 * server; they become vscode-remote:// URIs on the server's authority.
 */
export function workbenchUrl(serverUrl, folder, payload = {}) {
  const authority = new URL(serverUrl).host;
  const entries = Object.entries(payload).map(([k, v]) => [k, k.endsWith('Path') ? `vscode-remote://${authority}${v}` : String(v)]);
  const q = new URLSearchParams({ folder });
  if (entries.length) q.set('payload', JSON.stringify(entries));
  return `${serverUrl}/?${q}`;
}

/**
 * VS Code 1.139 only honours extensionDevelopmentPath/extensionTestsPath from the URL payload when
 * `developmentOptions.enableSmokeTestDriver` is set in the workbench configuration. code-server's CLI
 * rejects that flag, so patch the served configuration (the data-settings JSON of a meta element) before
 * the workbench reads it. (Intercepting the request instead broke the WebSocket.)
 */
export async function enableSmokeTestDriver(page) {
  await page.addInitScript(() => {
    const patch = (el) => {
      if (!(el instanceof HTMLElement) || el.id !== 'vscode-workbench-web-configuration' || !el.dataset.settings) return false;
      const cfg = JSON.parse(el.dataset.settings);
      cfg.developmentOptions = { ...(cfg.developmentOptions || {}), enableSmokeTestDriver: true };
      el.dataset.settings = JSON.stringify(cfg);
      return true;
    };
    const mo = new MutationObserver((muts) => {
      for (const m of muts) for (const n of m.addedNodes) if (patch(n)) return mo.disconnect();
    });
    mo.observe(document, { childList: true, subtree: true });
  });
}

/**
 * What the extension keeps once it opened its walkthrough (src/host/walkthrough.ts), where the web workbench keeps
 * an extension's global state: the browser's IndexedDB (`vscode-web-state-db-global`, store `ItemTable`), under the
 * extension's id, as JSON. The first-run UI test checks that a first start leaves exactly this record.
 */
export const WALKTHROUGH_SHOWN = {
  db: 'vscode-web-state-db-global',
  store: 'ItemTable',
  key: 'agent-recall.agent-recall',
  value: JSON.stringify({ 'agentRecall.walkthroughShown': true }),
};

/**
 * Gives a page's fresh browser profile the state a first start leaves (the walkthrough was shown), so a test that
 * is not about the first start begins with the editor area its own: the extension opens its walkthrough only on
 * the first activation of a profile, and every Playwright page is a new profile. Writes the record on the
 * server's origin before the workbench loads.
 */
export async function seedShownWalkthrough(page, serverUrl) {
  await page.goto(`${serverUrl}/healthz`);
  await page.evaluate(
    ({ db, store, key, value }) =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open(db, 1);
        open.onupgradeneeded = () => open.result.createObjectStore(store);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction(store, 'readwrite');
          tx.objectStore(store).put(value, key);
          tx.oncomplete = () => {
            open.result.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
    WALKTHROUGH_SHOWN,
  );
}

/** The extension's global state as the workbench stored it in this page's profile (undefined: none yet). */
export function storedExtensionState(page) {
  return page.evaluate(
    ({ db, store, key }) =>
      new Promise((resolve) => {
        const open = indexedDB.open(db);
        open.onerror = () => resolve(undefined);
        open.onsuccess = () => {
          const d = open.result;
          if (!d.objectStoreNames.contains(store)) return resolve(undefined);
          const get = d.transaction(store, 'readonly').objectStore(store).get(key);
          get.onsuccess = () => resolve(get.result);
          get.onerror = () => resolve(undefined);
        };
      }),
    WALKTHROUGH_SHOWN,
  );
}
