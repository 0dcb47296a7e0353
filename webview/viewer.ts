// The exchange viewer's browser side: a reading view of one exchange. Transcript text is untrusted (agents
// paste web pages, issue bodies, tool output), so it is tokenized as Markdown by a real CommonMark tokenizer
// with raw HTML off, and the DOM is built from the tokens with text nodes only: there is no innerHTML of
// transcript text anywhere. Only http(s) links become links, showing where they go; command:, vscode:,
// file: and every other target stay text. The host's CSP (no inline script, no remote anything) stands behind.
import hljs from 'highlight.js/lib/common';
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import type { ExchangeView, Turn, ViewerMessage, ViewerRequest } from '../src/viewerProtocol';
import { button, el, icon } from './dom';

/** Only http(s) links with a host become links. The host checks again and asks before opening (linkTarget in
 *  core/linkTarget.ts); this side keeps its own check because no code crosses from the host into the webview. */
function isWebLink(href: string): boolean {
  try {
    const u = new URL(href);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

declare function acquireVsCodeApi(): { postMessage(m: ViewerRequest): void; setState(s: unknown): void };
const vscode = acquireVsCodeApi();

// html: false turns every tag into text; linkify finds bare URLs that say their scheme (they are filtered
// like any link below): only http(s)://, never a word that looks like a domain (`hello.py` is not http://hello.py)
const markdown = new MarkdownIt({ html: false, linkify: true });
markdown.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false }).add('ftp:', null).add('mailto:', null).add('//', null);

// --- Markdown tokens -> DOM ----------------------------------------------------------------------------

const BLOCK_TAGS: Record<string, keyof HTMLElementTagNameMap> = {
  paragraph_open: 'p', bullet_list_open: 'ul', ordered_list_open: 'ol', list_item_open: 'li', blockquote_open: 'blockquote',
  table_open: 'table', thead_open: 'thead', tbody_open: 'tbody', tr_open: 'tr', th_open: 'th', td_open: 'td',
};
const INLINE_TAGS: Record<string, keyof HTMLElementTagNameMap> = { strong_open: 'strong', em_open: 'em', s_open: 's' };

/** Appends block tokens to `root`; nesting follows the tokens' open/close pairs. */
function renderBlocks(tokens: readonly Token[], root: HTMLElement): void {
  const stack: HTMLElement[] = [root];
  const top = (): HTMLElement => stack[stack.length - 1]!;
  for (const t of tokens) {
    if (t.type === 'inline') renderInline(t.children ?? [], top());
    else if (t.type === 'fence' || t.type === 'code_block') top().append(codeBlock(t.content, t.info.trim().split(/\s+/)[0] ?? ''));
    else if (t.type === 'hr') top().append(el('hr'));
    else if (t.type === 'heading_open') {
      // transcript headings stay smaller than the viewer's own title
      const h = el('div', { class: `md-heading md-${t.tag}` });
      top().append(h);
      stack.push(h);
    } else if (t.nesting === 1) {
      const e = el(BLOCK_TAGS[t.type] ?? 'div');
      top().append(e);
      stack.push(e);
    } else if (t.nesting === -1 && stack.length > 1) stack.pop();
    else if (t.type === 'html_block') top().append(el('p', {}, t.content)); // not produced with html: false; text if ever
  }
}

function renderInline(tokens: readonly Token[], root: HTMLElement): void {
  const stack: HTMLElement[] = [root];
  const top = (): HTMLElement => stack[stack.length - 1]!;
  for (const t of tokens) {
    switch (t.type) {
      case 'text':
      case 'html_inline':
        top().append(t.content);
        break;
      case 'code_inline':
        top().append(el('code', {}, t.content));
        break;
      case 'softbreak':
        top().append('\n');
        break;
      case 'hardbreak':
        top().append(el('br'));
        break;
      case 'image':
        // never loaded: the alt text and where it would come from
        top().append(el('span', { class: 'inert-link' }, `[image: ${t.content}] (${t.attrGet('src') ?? ''})`));
        break;
      case 'link_open': {
        const href = t.attrGet('href') ?? '';
        const e = isWebLink(href) ? webLink(href) : el('span', { class: 'inert-link', 'data-target': href });
        top().append(e);
        stack.push(e);
        break;
      }
      case 'link_close': {
        const e = stack.pop()!;
        const target = e.getAttribute('data-target') ?? '';
        const shown = e.textContent ?? '';
        // say where it goes, unless the text is the target already
        if (target && shown !== target && `mailto:${shown}` !== target) {
          e.after(el('span', { class: e.tagName === 'A' ? 'link-target' : 'link-target inert' }, ` (${e.tagName === 'A' ? new URL(target).host : target})`));
        }
        break;
      }
      default:
        if (INLINE_TAGS[t.type]) {
          const e = el(INLINE_TAGS[t.type]!);
          top().append(e);
          stack.push(e);
        } else if (t.nesting === -1 && stack.length > 1) stack.pop();
        else if (t.content) top().append(t.content);
    }
  }
}

/** An http(s) link: the host opens it once the user confirmed its whole URL; its title is the full URL. */
function webLink(href: string): HTMLAnchorElement {
  const a = el('a', { href: '#', title: href, 'data-target': href });
  a.addEventListener('click', (ev) => {
    ev.preventDefault();
    vscode.postMessage({ type: 'openLink', href });
  });
  return a;
}

// --- code highlighting ---------------------------------------------------------------------------------

/**
 * A code block highlighted by highlight.js, whose HTML output is parsed into an inert document (scripts never
 * run in a DOMParser document) and copied over as spans with hljs- classes and text nodes only.
 */
function codeBlock(code: string, lang: string): HTMLElement {
  const codeEl = el('code');
  const language = lang && hljs.getLanguage(lang) ? lang : undefined;
  if (language && code.length < 100_000) {
    const html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
    copyHighlighted(new DOMParser().parseFromString(`<pre>${html}</pre>`, 'text/html').body.firstChild!, codeEl);
  } else codeEl.append(code);
  return el('pre', { class: 'code', ...(lang ? { 'data-lang': lang } : {}) }, codeEl);
}

function copyHighlighted(from: Node, to: HTMLElement): void {
  for (const n of Array.from(from.childNodes)) {
    if (n.nodeType === Node.TEXT_NODE) to.append(n.textContent ?? '');
    else if (n instanceof Element) {
      const classes = (n.getAttribute('class') ?? '').split(/\s+/).filter((c) => /^hljs-[\w-]+$|^[\w-]+_$/.test(c));
      const span = el('span', classes.length ? { class: classes.join(' ') } : {});
      copyHighlighted(n, span);
      to.append(span);
    }
  }
}

// --- the view --------------------------------------------------------------------------------------------

const TURN_LABEL = { user: 'You', assistant: 'Agent', context: 'Context (not written by a person)' } as const;
const TURN_ICON = { user: 'account', assistant: 'hubot', context: 'info' } as const;

function renderTurn(turn: Turn): HTMLElement {
  if (turn.kind === 'tools') {
    const details = el('details', { class: 'tools' },
      el('summary', {}, icon('tools'), turn.summary),
      codeBlock(turn.lines.join('\n'), ''));
    return details;
  }
  const body = el('div', { class: 'body' });
  renderBlocks(markdown.parse(turn.text, {}), body);
  return el('section', { class: `turn ${turn.kind}` }, el('div', { class: 'who' }, icon(TURN_ICON[turn.kind]), TURN_LABEL[turn.kind]), body);
}

function render(v: ExchangeView): void {
  document.title = v.title;
  const app = document.getElementById('app')!;
  const nav = el('nav', { class: 'nav' },
    // the editor title's icons for the same commands (package.json)
    button([icon('arrow-left'), 'Previous'], () => vscode.postMessage({ type: 'step', direction: 'previous' }), { ...(v.previous ? {} : { disabled: '' }), title: 'Previous exchange of this conversation' }),
    button(['Next', icon('arrow-right')], () => vscode.postMessage({ type: 'step', direction: 'next' }), { ...(v.next ? {} : { disabled: '' }), title: 'Next exchange of this conversation' }),
    button([icon('go-to-file'), 'Open raw transcript'], () => vscode.postMessage({ type: 'openRaw' }), { title: v.transcript }));
  const meta = el('div', { class: 'meta' },
    el('span', { class: 'date', title: v.approximate ?? v.date }, v.date), ` · ${v.when} · ${v.agentName}`, v.position ? ` · ${v.position}` : '');
  if (v.approximate) meta.append(' ', el('span', { class: 'approximate', title: v.approximate }, 'approximate date'));
  const header = el('header', {}, el('h1', {}, v.title), meta, nav);
  const parts: HTMLElement[] = [header];
  if (v.card) {
    parts.push(el('aside', { class: 'card', 'aria-label': 'Distilled' },
      ...(v.card.core ? [el('div', { class: 'core' }, v.card.core)] : []),
      ...(v.card.context ? [el('div', { class: 'context' }, v.card.context)] : []),
      el('div', { class: 'card-meta' }, [...v.card.rooms.map((r) => `# ${r}`), `distilled by ${v.card.distiller}`].join(' · '))));
  }
  if (v.files.length) {
    const files = el('div', { class: 'files' }, 'Files: ');
    for (const f of v.files) {
      files.append(button([icon('file'), f.lines ? `${f.label}:${f.lines}` : f.label], () => vscode.postMessage({ type: 'openFile', path: f.path }), {
        class: `file ${f.how}`, title: `${f.touched}: open ${f.label}`,
      }));
    }
    parts.push(files);
  }
  parts.push(el('main', { class: 'conversation' }, ...v.turns.map(renderTurn)));
  parts.push(el('footer', {}, `${v.session} · ${v.transcript} · ${v.exchangeId}`,
    ...v.copies.map((c) => el('div', { class: 'copy' }, `Also saved in ${c}`))));
  app.replaceChildren(...parts);
  window.scrollTo(0, 0);
}

window.addEventListener('message', (ev: MessageEvent<ViewerMessage>) => {
  const m = ev.data;
  if (m.type === 'show') {
    vscode.setState({ exchangeId: m.view.exchangeId });
    render(m.view);
  } else if (m.type === 'missing') {
    document.getElementById('app')!.replaceChildren(el('p', { class: 'missing' }, icon('warning'), `The exchange ${m.exchangeId} is not in the index (it may have been re-indexed).`));
  }
});

vscode.postMessage({ type: 'ready' });
