import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { defaultUserDataDirs, userDataDirOf } from '../../src/core/sources/agentRoots';
import { Db } from '../../src/core/store/db';
import { Store } from '../../src/core/store/store';
import {
  adoptStore,
  canonicalFolder,
  EXTENSION_STORAGE_ID,
  extensionStorageFolders,
  findWorkspaceStore,
  workspaceStoreFile,
  workspaceStoreKey,
} from '../../src/core/storeLocation';
import { tempDir } from './helpers';
import { CONVERSATIONS, writeConversation } from './searchFixture';

test('a workspace has one store key, however its folders are written', () => {
  const root = tempDir('recall-loc-');
  const shop = path.join(root, 'shop');
  mkdirSync(shop);
  symlinkSync(shop, path.join(root, 'link'));
  const key = workspaceStoreKey([shop]);
  assert.match(key, /^shop-[0-9a-f]{16}$/);
  assert.equal(workspaceStoreKey([`${shop}/`]), key);
  assert.equal(workspaceStoreKey([path.join(root, 'link')]), key, 'symlinks resolve to the folder');
  assert.equal(workspaceStoreKey([path.join(shop, 'sub', '..')]), key);
  assert.notEqual(workspaceStoreKey([path.join(root, 'shop2')]), key);
  // a multi-root workspace is the set of its folders
  const blog = path.join(root, 'blog');
  assert.equal(workspaceStoreKey([shop, blog]), workspaceStoreKey([blog, shop, shop]));
  assert.notEqual(workspaceStoreKey([shop, blog]), key);
  // file systems that ignore case
  assert.equal(workspaceStoreKey(['C:\\Code\\Shop'], 'win32'), workspaceStoreKey(['c:\\code\\shop'], 'win32'));
  assert.equal(canonicalFolder('/'), '/');
  assert.throws(() => workspaceStoreKey([]), /at least one folder/);
});

test('the editor\'s user-data folder is still found from the store\'s folder (Copilot Chat sessions live there)', () => {
  const ud = path.join(tempDir('recall-ud-'), 'Code');
  const storage = path.join(ud, 'User', 'globalStorage', EXTENSION_STORAGE_ID);
  assert.equal(userDataDirOf(path.dirname(workspaceStoreFile(storage, ['/home/u/shop']))), ud);
  assert.equal(userDataDirOf(path.join(ud, 'User', 'globalStorage', EXTENSION_STORAGE_ID, 'models', 'x')), undefined);
});

test('the store is looked for in the global storage of every VS Code flavour', () => {
  const linux = extensionStorageFolders({}, 'linux', '/home/u');
  assert.ok(linux.includes(`/home/u/.config/Code/User/globalStorage/${EXTENSION_STORAGE_ID}`));
  assert.ok(linux.includes(`/home/u/.config/Cursor/User/globalStorage/${EXTENSION_STORAGE_ID}`));
  assert.ok(linux.includes(`/home/u/.local/share/code-server/User/globalStorage/${EXTENSION_STORAGE_ID}`));
  const xdg = extensionStorageFolders({ XDG_CONFIG_HOME: '/x', AGENT_RECALL_STORAGE: '/given' }, 'linux', '/home/u');
  assert.equal(xdg[0], '/given');
  assert.ok(xdg.includes(`/x/Code - Insiders/User/globalStorage/${EXTENSION_STORAGE_ID}`));
  const mac = extensionStorageFolders({}, 'darwin', '/Users/u');
  assert.ok(mac.includes(`/Users/u/Library/Application Support/Code/User/globalStorage/${EXTENSION_STORAGE_ID}`));
});

test('the extension\'s store is found where Kiro, Trae and a Cursor remote server keep it (they differ from VS Code only by folder)', async () => {
  const home = tempDir('recall-home-');
  const ws = tempDir('recall-ws-');
  const layouts = [
    ['Kiro', path.join(home, '.config', 'Kiro')],
    ['Trae', path.join(home, '.config', 'Trae')],
    ['Cursor over SSH', path.join(home, '.cursor-server', 'data')],
  ] as const;
  for (const [editor, userData] of layouts) {
    const file = workspaceStoreFile(path.join(userData, 'User', 'globalStorage', EXTENSION_STORAGE_ID), [ws]);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '');
    assert.equal((await findWorkspaceStore([ws], extensionStorageFolders({}, 'linux', home)))?.file, file, editor);
    // the editor reads its own agents' sessions from the same folder
    assert.equal(userDataDirOf(path.dirname(file)), userData, editor);
    rmSync(path.join(home, '.config'), { recursive: true, force: true });
    rmSync(path.join(home, '.cursor-server'), { recursive: true, force: true });
  }
  const mac = extensionStorageFolders({}, 'darwin', '/Users/u');
  assert.ok(mac.includes(`/Users/u/Library/Application Support/Trae/User/globalStorage/${EXTENSION_STORAGE_ID}`));
  const win = extensionStorageFolders({ APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'win32', 'C:\\Users\\u');
  assert.ok(win.some((f) => f.startsWith(path.join('C:\\Users\\u\\AppData\\Roaming', 'Kiro'))));
});

test('the command line reads the agents of every VS Code-family editor\'s user-data folder', () => {
  const dirs = defaultUserDataDirs({ XDG_CONFIG_HOME: '/x' }, 'linux');
  for (const product of ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf', 'Kiro', 'Trae']) assert.ok(dirs.includes(`/x/${product}`), product);
});

test('of several flavours\' stores of one workspace, the most recently written is chosen', async () => {
  const ws = tempDir('recall-ws-');
  const a = tempDir('recall-a-');
  const b = tempDir('recall-b-');
  assert.equal(await findWorkspaceStore([ws], [a, b]), undefined);
  for (const [dir, when] of [[a, 1_000], [b, 2_000]] as const) {
    const file = workspaceStoreFile(dir, [ws]);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '');
    utimesSync(file, when, when);
  }
  assert.deepEqual(await findWorkspaceStore([ws], [a, b]), { file: workspaceStoreFile(b, [ws]), others: [workspaceStoreFile(a, [ws])] });
});

test('a store at the old location moves with its WAL, and never over an existing one', async () => {
  const dir = tempDir('recall-adopt-');
  const from = path.join(dir, 'old', 'recall.sqlite');
  const to = path.join(dir, 'new', 'deep', 'recall.sqlite');
  mkdirSync(path.dirname(from));
  writeFileSync(from, 'main');
  writeFileSync(`${from}-wal`, 'wal');
  assert.equal(await adoptStore(from, to), true);
  assert.equal(readFileSync(to, 'utf8'), 'main');
  assert.equal(readFileSync(`${to}-wal`, 'utf8'), 'wal');
  assert.ok(!existsSync(from) && !existsSync(`${from}-wal`));
  writeFileSync(from, 'older');
  assert.equal(await adoptStore(from, to), false);
  assert.equal(readFileSync(to, 'utf8'), 'main');
  assert.equal(await adoptStore(path.join(dir, 'none.sqlite'), path.join(dir, 'x.sqlite')), false);
});

test('a read-only store writes nothing and refuses a store it cannot read as it is', async () => {
  const dir = tempDir('recall-ro-');
  const file = path.join(dir, 'recall.sqlite');
  const store = await Store.open(file);
  await writeConversation(store, dir, CONVERSATIONS[0]!);
  await store.close();
  const ro = await Store.openReadOnly(file);
  try {
    assert.equal((await ro.listExchanges()).length, 3);
    await assert.rejects(ro.db.run('DELETE FROM exchanges'), /readonly|read-only/i);
  } finally {
    await ro.close();
  }
  await assert.rejects(Store.openReadOnly(path.join(dir, 'missing.sqlite')), /There is no Agent Recall store at/);
  assert.ok(!existsSync(path.join(dir, 'missing.sqlite')), 'nothing created');
  const old = await Db.open(file);
  await old.exec('PRAGMA user_version = 1');
  await old.close();
  await assert.rejects(Store.openReadOnly(file), /schema version 1; this Agent Recall reads version \d+\. Open the workspace in VS Code/);
  const newer = await Db.open(file);
  await newer.exec('PRAGMA user_version = 999');
  await newer.close();
  await assert.rejects(Store.openReadOnly(file), /written by a newer Agent Recall/);
});
