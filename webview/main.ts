// The recall panel's browser side: renders what the host sends and reports what the user does. It builds
// DOM nodes with textContent only (never innerHTML), so transcript text cannot become markup; the host's
// CSP forbids inline scripts and handlers anyway.
import type { Candidate, ConfidenceTier, Facets, HostMessage, IndexStatus, TimeFacet, WebviewMessage } from '../src/protocol';
import { button, el, icon } from './dom';

declare function acquireVsCodeApi(): { postMessage(m: WebviewMessage): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();

// short enough that debounce + search (p50 20 ms, p95 61 ms on 10,000 exchanges) stays near 150 ms
const DEBOUNCE_MS = 80;
const TIMES: ReadonlyArray<[TimeFacet, string]> = [['week', 'Past week'], ['month', 'Past month'], ['quarter', 'Past 3 months']];
const CONFIDENCE_LABEL = { high: 'confident', medium: 'possible', low: 'weak' } as const;
const CONFIDENCE_ICON = { high: 'pass-filled', medium: 'pass', low: 'question' } as const;

interface State {
  text: string;
  facets: Facets;
  exclude: string[];
  candidates: readonly Candidate[];
  selected: number;
  seq: number;
  shownSeq: number;
  status: IndexStatus | undefined;
  notice: string | undefined;
  error: string | undefined;
  confidence: ConfidenceTier;
  /** The candidates are a conversation's exchanges in order (its facet without text), not matches. */
  inOrder: boolean;
}

const state: State = {
  text: '', facets: {}, exclude: [], candidates: [], selected: 0, seq: 0, shownSeq: 0,
  status: undefined, notice: undefined, error: undefined, confidence: 'low', inOrder: false,
};

// --- layout -------------------------------------------------------------------------------------------
const app = document.getElementById('app')!;
const input = el('input', {
  type: 'text', id: 'query', placeholder: 'Describe what you remember…',
  'aria-label': 'Describe the past conversation you are looking for', 'aria-controls': 'results', autocomplete: 'off', spellcheck: 'false',
});
const hint = el('div', { class: 'hint' }, '↑↓ move · Enter open the exchange · Ctrl+Enter open the touched file · Esc clear');
const chips = el('div', { class: 'chips', role: 'toolbar', 'aria-label': 'Refine' });
const banner = el('div', { class: 'banner', role: 'status', 'aria-live': 'polite' });
const list = el('ul', { id: 'results', class: 'results', role: 'listbox', 'aria-label': 'Candidates' });
app.append(el('div', { class: 'search' }, input, hint), chips, banner, list);

// --- behaviour ----------------------------------------------------------------------------------------
let timer: ReturnType<typeof setTimeout> | undefined;
function scheduleQuery(delay = DEBOUNCE_MS): void {
  clearTimeout(timer);
  timer = setTimeout(sendQuery, delay);
}

function sendQuery(): void {
  state.seq++;
  // kept by VS Code with the panel, so the query comes back after a window reload
  vscode.setState({ text: state.text, facets: state.facets });
  vscode.postMessage({ type: 'query', seq: state.seq, text: state.text, facets: state.facets, exclude: state.exclude });
}

function setFacets(f: Facets): void {
  state.facets = f;
  renderChips();
  scheduleQuery(0);
}

function select(i: number): void {
  if (!state.candidates.length) return;
  state.selected = Math.max(0, Math.min(state.candidates.length - 1, i));
  for (const [j, li] of [...list.children].entries()) li.setAttribute('aria-selected', String(j === state.selected));
  const current = list.children[state.selected] as HTMLElement | undefined;
  if (current) {
    input.setAttribute('aria-activedescendant', current.id);
    current.scrollIntoView({ block: 'nearest' });
  }
}

function open(c: Candidate | undefined): void {
  if (c) vscode.postMessage({ type: 'open', exchangeId: c.exchangeId });
}

function openFile(c: Candidate | undefined, path?: string): void {
  if (c) vscode.postMessage({ type: 'openFile', exchangeId: c.exchangeId, ...(path ? { path } : {}) });
}

function exclude(ids: readonly string[]): void {
  state.exclude = [...new Set([...state.exclude, ...ids])];
  renderChips();
  scheduleQuery(0);
}

input.addEventListener('input', () => {
  state.text = input.value;
  scheduleQuery();
});

input.addEventListener('keydown', (ev) => {
  const current = state.candidates[state.selected];
  if (ev.key === 'ArrowDown') select(state.selected + 1);
  else if (ev.key === 'ArrowUp') select(state.selected - 1);
  else if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) openFile(current);
  else if (ev.key === 'Enter') open(current);
  else if (ev.key === 'Escape') {
    input.value = '';
    state.text = '';
    scheduleQuery(0);
  } else return;
  ev.preventDefault();
});

// --- rendering ----------------------------------------------------------------------------------------
function chip(label: string, active: boolean, onClick: () => void, title?: string): HTMLButtonElement {
  return button(label, onClick, { class: active ? 'chip active' : 'chip', 'aria-pressed': String(active), ...(title ? { title } : {}) });
}

/** A chip that takes a filter away again: its label, then a close icon; its title says what a click removes. */
function removable(label: string, title: string, onClick: () => void): HTMLButtonElement {
  return button([label, icon('close')], onClick, { class: 'chip active removable', 'aria-pressed': 'true', title });
}

function renderChips(): void {
  chips.replaceChildren();
  const f = state.facets;
  for (const [t, label] of TIMES.filter(([t]) => f.time === t || state.status?.times.includes(t))) chips.append(chip(label, f.time === t, () => setFacets({ ...f, time: f.time === t ? undefined : t })));
  // the host names the agents (status message): the webview keeps no list of its own
  const agents = state.status?.agents ?? [];
  for (const a of agents.filter((a) => agents.length > 1 || f.agent === a.id)) chips.append(chip(a.name, f.agent === a.id, () => setFacets({ ...f, agent: f.agent === a.id ? undefined : a.id })));
  if (f.room) chips.append(removable(`room: ${f.room.label}`, 'Remove the room filter', () => setFacets({ ...f, room: undefined })));
  if (f.file) chips.append(removable(`file: ${f.file}`, 'Remove the file filter', () => setFacets({ ...f, file: undefined })));
  if (f.like) chips.append(removable(`like: ${f.like.label}`, 'Stop looking for exchanges like this one', () => setFacets({ ...f, like: undefined })));
  if (f.conversation) chips.append(removable(`conversation: ${f.conversation.label}`, 'Remove the conversation filter', () => setFacets({ ...f, conversation: undefined })));
  if (state.candidates.length) {
    chips.append(button([icon('eye-closed'), 'Not these'], () => exclude(state.candidates.map((c) => c.exchangeId)), { class: 'chip action', title: 'Hide these candidates and show the next ones' }));
  }
  if (state.exclude.length) {
    chips.append(removable(`${state.exclude.length} hidden`, 'Show the hidden candidates again', () => {
      state.exclude = [];
      renderChips();
      scheduleQuery(0);
    }));
  }
}

function renderBanner(): void {
  const lines: HTMLDivElement[] = [];
  // an icon marks the lines that say something is wrong, under way, or empty
  const say = (text: string, iconName?: string): void => {
    lines.push(el('div', {}, ...(iconName ? [icon(iconName)] : []), text));
  };
  const s = state.status;
  if (state.error) say(`Search failed: ${state.error}`, 'error');
  if (s?.background) say(s.background, 'loading');
  else if (s?.indexing) say(`Still indexing: ${s.exchanges} exchanges searchable so far.`, 'loading');
  if (s?.message) say(s.message);
  if (state.notice) say(state.notice);
  else if (s && !s.semantic.startsWith('on')) say(`Semantic search ${s.semantic.replace(/\.?$/, '.')} Matching words only.`);
  const asked = state.text.trim() || state.facets.room || state.facets.file || state.facets.like || state.facets.conversation;
  const conversation = state.facets.conversation;
  if (!asked) {
    if (s && s.exchanges === 0 && !s.indexing) say('No exchanges are indexed yet: no agent transcripts were found for this workspace.', 'inbox');
    else {
      say(`Describe a past conversation in your own words; ${s ? `${s.exchanges} exchanges` : 'your exchanges'} are searched as you type.`);
      if (s?.semantic.startsWith('on')) say(`Semantic search ${s.semantic}: your words first, and by meaning where the words alone are not decisive.`);
      const scope = [state.status?.agents.find((a) => a.id === state.facets.agent)?.name, TIMES.find(([t]) => t === state.facets.time)?.[1]].filter(Boolean);
      if (state.candidates.length) say(`Most recent exchanges of this workspace${scope.length ? ` (${scope.join(', ')})` : ''}:`);
      else if (scope.length) say(`No exchange of this workspace (${scope.join(', ')}). Remove a filter.`, 'filter');
    }
  } else if (state.shownSeq > 0 && state.candidates.length === 0) {
    say('No past exchange matches. Try other words, or remove a filter.', 'search');
  } else if (conversation && state.inOrder) {
    say(`The conversation “${conversation.label}”, first exchange to last.`);
  } else if (conversation) {
    say(`Every match in the conversation “${conversation.label}”, best first.`);
  } else if (state.candidates.length && state.confidence === 'low') {
    say('No confident match — these are the closest exchanges.', 'question');
  }
  banner.replaceChildren(...lines);
  banner.className = state.error ? 'banner error' : 'banner';
}

function renderCandidate(c: Candidate, i: number): HTMLLIElement {
  const snippet = el('div', { class: 'snippet' });
  for (const p of c.snippet) snippet.append(p.mark ? el('mark', {}, p.text) : document.createTextNode(p.text));
  const files = el('div', { class: 'files' });
  for (const f of c.files) {
    files.append(button([icon('file'), f.lines ? `${f.label}:${f.lines}` : f.label], () => openFile(c, f.path), {
      class: 'file', title: `Open ${f.label} (${f.touched})`,
    }));
  }
  const rooms = el('div', { class: 'rooms' });
  for (const r of c.rooms) rooms.append(button(r.label, () => setFacets({ ...state.facets, room: r }), { class: 'chip room', title: 'Recall in this room' }));
  const li = el('li', { id: `c-${i}`, role: 'option', class: 'candidate', 'aria-selected': String(i === state.selected), 'data-id': c.exchangeId },
    el('div', { class: 'headline' }, ...(c.confidence ? [el('span', { class: `tier ${c.confidence}`, title: `confidence: ${c.confidence}` }, icon(CONFIDENCE_ICON[c.confidence]), CONFIDENCE_LABEL[c.confidence])] : []), c.headline),
    ...(c.context ? [el('div', { class: 'context' }, c.context)] : []),
    el('div', { class: 'meta' }, ...(c.title ? [el('span', { class: 'title' }, c.title), ' · '] : []),
      el('span', { class: 'date', title: c.when }, c.date), ` (${c.when}) · `, c.agentName, c.distilled ? '' : ' · not distilled yet',
      // the same exchange in other transcripts (a chat saved twice): shown once, and said so
      ...(c.savedIn ? [' · ', el('span', { class: 'copies', title: `Also saved in:\n${c.savedIn.join('\n')}` }, `also in ${c.savedIn.length === 1 ? 'another transcript' : `${c.savedIn.length} other transcripts`}`)] : [])),
    snippet,
    files,
    rooms,
    ...(c.why ? [el('div', { class: 'why' }, c.why)] : []),
    el('div', { class: 'actions' },
      button([icon('open-preview'), 'Open'], () => open(c), { class: 'link' }),
      // matches of this conversation the two-per-conversation cap left out: the query stays, the conversation becomes a chip
      ...(c.more ? [moreLink(c.more)] : []),
      // the query box keeps the user's words; the seed becomes a chip and is never a candidate itself
      button([icon('search'), 'More like this'], () => setFacets({ ...state.facets, like: { id: c.exchangeId, label: c.headline.length > 60 ? `${c.headline.slice(0, 59)}…` : c.headline } }), { class: 'link' }),
      button([icon('eye-closed'), 'Not this'], () => exclude([c.exchangeId]), { class: 'link' })),
  );
  li.addEventListener('click', () => select(i));
  li.addEventListener('dblclick', () => open(c));
  return li;
}

function moreLink(more: NonNullable<Candidate['more']>): HTMLButtonElement {
  return button([icon('comment-discussion'), `${more.count} more in this conversation`], () => setFacets({ ...state.facets, conversation: more.conversation }), {
    class: 'link more', title: `Show every match in “${more.conversation.label}”`,
  });
}

function renderList(): void {
  list.replaceChildren(...state.candidates.map(renderCandidate));
  list.setAttribute('data-seq', String(state.shownSeq));
  select(Math.min(state.selected, state.candidates.length - 1));
}

window.addEventListener('message', (ev: MessageEvent<HostMessage>) => {
  const m = ev.data;
  switch (m.type) {
    case 'status':
      state.status = m.status;
      // an example from this workspace's own themes, once the host knows them
      input.placeholder = m.status.example ? `Describe what you remember… (e.g. "${m.status.example}")` : 'Describe what you remember…';
      renderChips();
      renderBanner();
      return;
    case 'results':
      if (m.seq < state.shownSeq || m.seq !== state.seq) return; // an answer to an older query
      state.shownSeq = m.seq;
      state.candidates = m.candidates;
      state.selected = 0;
      state.confidence = m.confidence;
      state.notice = m.notice;
      state.inOrder = m.inOrder === true;
      state.error = undefined;
      renderList();
      renderChips();
      renderBanner();
      return;
    case 'setQuery':
      input.value = m.text;
      state.text = m.text;
      state.facets = m.facets;
      state.exclude = [];
      renderChips();
      scheduleQuery(0);
      input.focus();
      return;
    case 'error':
      state.error = m.message;
      renderBanner();
      return;
  }
});

const saved = vscode.getState() as { text?: unknown; facets?: unknown } | undefined;
if (typeof saved?.text === 'string') input.value = state.text = saved.text;
if (typeof saved?.facets === 'object' && saved.facets !== null) state.facets = saved.facets as Facets;
renderChips();
renderBanner();
input.focus();
vscode.postMessage({ type: 'ready' });
// an empty query answers with the most recent exchanges, so the panel is useful before typing
sendQuery();
