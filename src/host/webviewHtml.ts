// The one page shell of the extension's webviews (recall panel, exchange viewer) and their one content security
// policy: transcript text is untrusted, so nothing remote loads, no inline script or style runs, and the page
// can neither navigate, post a form nor frame another page. A webview states only its script, style and root;
// every page gets the codicons stylesheet (dist/codicons/, copied there by esbuild.mjs), before its own so
// that its own can adjust the icons.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export interface WebviewPage {
  readonly script: vscode.Uri;
  readonly style: vscode.Uri;
  readonly title: string;
  /** The page's root element, e.g. `<main id="app" aria-label="…">`, from constant markup only. */
  readonly root: string;
}

/** The folders a webview may load from: the bundles and the icon font (dist/), the stylesheets (media/). */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')];
}

export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, page: WebviewPage): string {
  const codicons = vscode.Uri.joinPath(extensionUri, 'dist', 'codicons', 'codicon.css');
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource}`,
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-src 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${webview.asWebviewUri(codicons).toString()}">
<link rel="stylesheet" href="${webview.asWebviewUri(page.style).toString()}">
<title>${page.title}</title>
</head>
<body>
${page.root}
<script nonce="${nonce}" src="${webview.asWebviewUri(page.script).toString()}"></script>
</body>
</html>`;
}
