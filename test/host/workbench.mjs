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
