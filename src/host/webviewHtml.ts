// The one page shell of the extension's webviews (recall panel, exchange viewer) and their one content security
// policy: transcript text is untrusted, so nothing remote loads, no inline script or style runs, and the page
// can neither navigate, post a form nor frame another page. A webview states only its script, style and root.
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export interface WebviewPage {
  readonly script: vscode.Uri;
  readonly style: vscode.Uri;
  readonly title: string;
  /** The page's root element, e.g. `<main id="app" aria-label="…">`, from constant markup only. */
  readonly root: string;
}

export function webviewHtml(webview: vscode.Webview, page: WebviewPage): string {
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
<link rel="stylesheet" href="${webview.asWebviewUri(page.style).toString()}">
<title>${page.title}</title>
</head>
<body>
${page.root}
<script nonce="${nonce}" src="${webview.asWebviewUri(page.script).toString()}"></script>
</body>
</html>`;
}
