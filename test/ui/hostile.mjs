// Hostile transcript text for the UI tests of every surface that shows it (issue 18 items 9-11): links
// that would run commands, raw HTML, Markdown escaping bypasses, and resources that would phone home.
// Every URL that a browser could load points at `logger` (a local HTTP server), so a test can assert that
// nothing reached it. Link texts start with LINK- so a test can find and Ctrl+click each one.
import { createServer } from 'node:http';

/** A local HTTP server that records every request it gets (the payloads' only reachable target). */
export async function startLogger() {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('logged');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, hits, close: () => new Promise((resolve) => server.close(resolve)) };
}

const enc = (o) => encodeURIComponent(JSON.stringify(o));

/** Links a Ctrl+click must never run; `seen` is what the command would visibly do. */
export function commandLinks(logger) {
  return [
    `[LINK-terminal](command:workbench.action.terminal.new)`,
    `[LINK-send](command:workbench.action.terminal.sendSequence?${enc({ text: `curl ${logger}/sendSequence\n` })})`,
    `[LINK-untitled](command:workbench.action.files.newUntitledFile)`,
    `[LINK-ref][evil]\n\n[evil]: command:workbench.action.terminal.new "reference definition"`,
    `<command:workbench.action.terminal.new>`,
    `[LINK-vscode](vscode://vscode.git/clone?url=${encodeURIComponent(`${logger}/clone`)})`,
    `[LINK-file](file:///etc/passwd)`,
    `[LINK-js](javascript:fetch('${logger}/js'))`,
    `[LINK-http](https://example.invalid/where-it-goes)`,
  ];
}

/** Markup that must stay text and load nothing. */
export function htmlPayloads(logger) {
  return [
    `<script>window.__xss="script";fetch("${logger}/script")</script>`,
    `<img src="${logger}/img" onerror="window.__xss='img'">`,
    `![pixel](${logger}/md-image)`,
    `<meta http-equiv="refresh" content="0;url=${logger}/refresh">`,
    `<style>@import url(${logger}/style-import); body { display: none }</style>`,
    `<link rel="stylesheet" href="${logger}/link-css">`,
    `<iframe srcdoc="<script>parent.__xss='iframe'</script>" src="${logger}/iframe"></iframe>`,
    `<svg onload="window.__xss='svg'"><image href="${logger}/svg-image"/></svg>`,
    `<details open ontoggle="window.__xss='toggle'">x</details>`,
    // escaping bypasses of the old line-based escaper (issue 18 item 10)
    `\\\`<img src="${logger}/backslash-backtick">\\\``,
    `[a \`b](https://example.invalid "t\`") <img src="${logger}/link-title-backtick">`,
    `- item\n  \`\`\`\n  code\n\`\`\`\n<img src="${logger}/list-fence">`,
  ];
}

/** A prompt and a reply carrying every payload, around a rare word the test searches for. */
export function hostileExchange(logger, word) {
  const links = commandLinks(logger);
  const html = htmlPayloads(logger);
  return {
    prompt: `Why does the ${word} widget break? ${links.slice(0, 3).join(' ')} ${html.slice(0, 4).join(' ')}`,
    // $(alert) in the headline: a CodeLens title would draw it as an icon
    reply: `The ${word} widget $(alert) broke because of this:\n\n${links.join('\n\n')}\n\n${html.join('\n\n')}\n\n` +
      '```html\n<script>window.__xss="fence"</script>\n```\n',
  };
}
