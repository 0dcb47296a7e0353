import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { Db } from '../../src/core/store/db';
import { migrate } from '../../src/core/store/schema';
import { tempDir } from './helpers';

// Schema 28 (todoListSources.ts): the sources whose stored exchanges hold Roo Code's or Kilo Code's update_todo_list
// or Copilot Chat's manage_todo_list as JSON are read again whole, and only those.

test('schema 28 marks the sources holding a to-do list call stored as its JSON to be read again, and only those', async () => {
  const db = await Db.open(path.join(tempDir(), 'v26-todo-lists.sqlite'));
  try {
    await db.exec('PRAGMA foreign_keys = ON');
    assert.equal(await migrate(db, 26), 0);
    const sources: Array<[string, string, string]> = [
      ['/t/roo/api_conversation_history.json', 'roo-code', '[tool] update_todo_list {"todos":"[-] Read the importer\\n[ ] Add the flag"}\n\n[result] Todo list updated successfully.'],
      ['/t/kilo/api_conversation_history.json', 'kilo', '[tool] update_todo_list {"todos":"[x] Read the importer"}'],
      ['/t/export.json', 'copilot', '[tool] manage_todo_list {"operation":"read"}\n\n[result] # Todo List\n\n- [x] Add the cache'],
      // already a checklist (schema 24's write), a tool named in what was said, another tool's input: left alone
      ['/t/written.json', 'copilot', '[tool] manage_todo_list ✓ Add the cache · ▸ Document it'],
      ['/t/cline/api_conversation_history.json', 'cline', 'Assistant: I will call update_todo_list next.\n[tool] execute_command echo manage_todo_list {'],
    ];
    for (const [i, [p, agent, verbatim]] of sources.entries()) {
      const id = i + 1;
      await db.run('INSERT INTO sources(id, path, agent, size, mtime_ms, parsed_offset, next_line) VALUES (?, ?, ?, 700, 5, 700, 30)', [id, p, agent]);
      await db.run(`INSERT INTO conversations(id, source_id, agent, session_id, line) VALUES ('c${id}', ${id}, '${agent}', 's${id}', 1)`);
      await db.run(
        `INSERT INTO exchanges(n, id, conversation_id, source_id, part, ply_start, ply_end, line_start, line_end, byte_start, prompt, verbatim)
         VALUES (?, ?, ?, ?, 0, 0, 1, 1, 9, 0, 'plan it', ?)`,
        [id, `ex-${id}`, `c${id}`, id, `User: plan it\n\n${verbatim}`],
      );
    }
    assert.equal(await migrate(db), 26);
    const sizes = await db.all<{ path: string; size: number }>('SELECT path, size FROM sources ORDER BY id');
    assert.deepEqual(sizes.map((s) => [s.path, s.size]), [
      ['/t/roo/api_conversation_history.json', -1],
      ['/t/kilo/api_conversation_history.json', -1],
      ['/t/export.json', -1],
      ['/t/written.json', 700],
      ['/t/cline/api_conversation_history.json', 700],
    ]);
  } finally {
    await db.close();
  }
});
