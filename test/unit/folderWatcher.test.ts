import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { type FolderWatch, watchFolders } from '../../src/host/folderWatcher';

const open: FolderWatch[] = [];
const made: string[] = [];
afterEach(() => {
  open.splice(0).forEach((w) => w.close());
  made.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-recall-watch-'));
  made.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** Watches `root`; the changed paths (relative, with `/`) collect in `seen`. */
async function watch(root: string): Promise<{ w: FolderWatch; seen: string[]; gone: () => boolean }> {
  const seen: string[] = [];
  let gone = false;
  const w = watchFolders(root, {
    change: (rel) => seen.push(rel.split(path.sep).join('/')),
    error: (err) => assert.fail(err),
    gone: () => (gone = true),
  });
  open.push(w);
  await w.ready;
  return { w, seen, gone: () => gone };
}

async function until(what: string, ok: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('watchFolders (live indexing, folder by folder)', () => {
  test("in VS Code's workspaceStorage it watches each workspace's chatSessions folder, not the other extensions' folders", async () => {
    const ws = path.join(
      tree({
        'workspaceStorage/ws1/state.vscdb': 'x',
        'workspaceStorage/ws1/ms-python.python/cache/a.json': '{}',
        'workspaceStorage/ws1/chatSessions/s1.jsonl': '{}\n',
        'workspaceStorage/ws2/eamodio.gitlens/deep/er/b.json': '{}',
      }),
      'workspaceStorage',
    );
    const { w, seen } = await watch(ws);
    assert.equal(w.folders, 4, 'workspaceStorage, ws1, ws1/chatSessions and ws2');
    fs.appendFileSync(path.join(ws, 'ws1/chatSessions/s1.jsonl'), '{"more":1}\n');
    fs.writeFileSync(path.join(ws, 'ws1/ms-python.python/cache/a.json'), '{"x":1}');
    await until('the session write', () => seen.includes('ws1/chatSessions/s1.jsonl'));
    assert.ok(!seen.some((s) => s.startsWith('ws1/ms-python.python/')), seen.join(', '));
  });

  test('a folder made later is watched, and a file written into it before its watch began is reported', async () => {
    const root = tree({ 'projects/a/s.jsonl': '{}\n' });
    const { w, seen } = await watch(root);
    assert.equal(w.folders, 3);
    fs.mkdirSync(path.join(root, 'projects/b/deeper'), { recursive: true });
    fs.writeFileSync(path.join(root, 'projects/b/deeper/first.jsonl'), '{}\n');
    await until('the first file of the new folder', () => seen.includes('projects/b/deeper/first.jsonl'));
    await until('the new folders are watched', () => w.folders === 5);
    fs.appendFileSync(path.join(root, 'projects/b/deeper/first.jsonl'), '{}\n');
    const before = seen.length;
    await until('a later write there', () => seen.length > before);
  });

  test("in OpenCode's data folder it watches storage only, not its snapshots, logs or binaries", async () => {
    const root = tree({
      'opencode/opencode.db': '',
      'opencode/snapshot/p1/objects/ab/cdef': 'blob',
      'opencode/log/2026.log': '',
      'opencode/storage/session/p1/ses_1.json': '{}',
      'opencode/storage/message/ses_1/msg_1.json': '{}',
      'opencode/node_modules/x/package.json': '{}',
    });
    const { w, seen } = await watch(root);
    // root, opencode, storage, session, session/p1, message, message/ses_1
    assert.equal(w.folders, 7);
    fs.writeFileSync(path.join(root, 'opencode/snapshot/p1/objects/ab/new'), 'blob');
    fs.writeFileSync(path.join(root, 'opencode/storage/message/ses_1/msg_2.json'), '{}');
    await until('the message write', () => seen.includes('opencode/storage/message/ses_1/msg_2.json'));
    assert.ok(!seen.some((s) => s.startsWith('opencode/snapshot/p1')), seen.join(', '));
  });

  test("in Copilot CLI's session-state it watches each session's folder, not the checkpoints and files the agent made below it", async () => {
    const root = tree({
      'session-state/s1/events.jsonl': '{}\n',
      'session-state/s1/workspace.yaml': 'name: x\n',
      'session-state/s1/checkpoints/001.json': '{}',
      'session-state/s1/files/notes/a.jsonl': '{}\n',
      'session-state/s2.jsonl': '{}\n',
    });
    const { w, seen } = await watch(root);
    assert.equal(w.folders, 3, 'root, session-state, s1');
    fs.writeFileSync(path.join(root, 'session-state/s1/files/notes/b.jsonl'), '{}\n');
    fs.appendFileSync(path.join(root, 'session-state/s1/events.jsonl'), '{"more":1}\n');
    await until('the log write', () => seen.includes('session-state/s1/events.jsonl'));
    assert.ok(!seen.some((s) => s.includes('/files/')), seen.join(', '));
  });

  test('a folder removed is no longer watched, nor anything below it', async () => {
    const root = tree({ 'a/b/c/s.jsonl': '{}\n', 'keep/t.jsonl': '{}\n' });
    const { w } = await watch(root);
    assert.equal(w.folders, 5);
    fs.rmSync(path.join(root, 'a'), { recursive: true });
    await until('the removed folders are forgotten', () => w.folders === 2);
  });

  test('says when the root itself is removed, and watches nothing after', async () => {
    const root = tree({ 'sessions/2026/s.jsonl': '{}\n' });
    const { w, gone } = await watch(root);
    assert.equal(w.folders, 3);
    fs.rmSync(root, { recursive: true });
    await until('the root is gone', gone);
    assert.equal(w.folders, 0);
  });
});
