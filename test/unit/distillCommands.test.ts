import assert from 'node:assert/strict';
import { test } from 'node:test';
import { programsRun } from '../../src/core/distill/commands';
import { detailCandidates, detailItems } from '../../src/core/distill/details';
import { distillOffline } from '../../src/core/distill/offline';
import { splitVerbatim } from '../../src/core/distill/verbatimParts';
import { englishRarity } from '../../src/core/distill/wordRarity';
import { distillInput as input } from './distillHelpers';

// issue 39 (b): an exchange of tool calls is remembered by the programs it ran ("resized it with sips into an icns")
const ICON = input(
  'make an app shortcut for the terminal with this icon, at the right sizes',
  [
    'Assistant: I will build the app bundle.',
    '[tool] Bash mkdir -p /tmp/T.iconset && cd /tmp/T.iconset && sips -z 16 16 /tmp/icon.png --out icon_16x16.png && sips -z 32 32 /tmp/icon.png --out icon_32x32.png Resize the icon',
    '[result] /private/tmp/icon.png',
    '[tool] Bash iconutil -c icns /tmp/T.iconset -o /tmp/T.icns Convert the iconset',
    '[tool] Bash ls -la /tmp/T.iconset | head -5',
    '[tool] Bash cat <<EOF > /tmp/run.sh ⏎ open -a Terminal ⏎ EOF',
    '',
    'Assistant: The app is in your Applications folder with the new icon.',
  ].join('\n'),
  { project: undefined },
);

test('programs run: each shell command of a call, without the shell plumbing, wrappers or a here-document', () => {
  assert.deepEqual(programsRun('Bash sudo -u me WGPU_BACKEND=vulkan flatpak run dev.app && powerprofilesctl set performance | grep -i mode'), [
    'flatpak',
    'powerprofilesctl',
  ]);
  assert.deepEqual(programsRun("shell bash -lc cargo build -p orchestrator; sed -n '1,20p' main.rs"), ['cargo']);
  assert.deepEqual(programsRun('run_shell_command gitleaks detect --source . Scan for secrets'), ['gitleaks']);
  assert.deepEqual(programsRun('Bash cat <<EOF > notes.md ⏎ terraform apply ⏎ EOF'), []);
  // another tool's call names no program
  assert.deepEqual(programsRun('Read /tmp/sips.txt'), []);
  assert.deepEqual(programsRun('WebFetch https://example.com sips docs'), []);
});

test('detail line: the programs the exchange ran, each verbatim, no plumbing', () => {
  const candidates = detailCandidates(splitVerbatim(ICON.verbatim), ICON, englishRarity());
  for (const program of ['sips', 'iconutil']) assert.ok(candidates.includes(program), candidates.join(' | '));
  for (const plumbing of ['mkdir', 'cd', 'ls', 'head', 'cat', 'EOF', 'open']) assert.ok(!candidates.includes(plumbing), candidates.join(' | '));
  // what the exchange ran is on its detail line when nothing it wrote names more
  const tuned = input('the laptop is slow on battery, make it fast', [
    '[tool] Bash powerprofilesctl set performance && powerprofilesctl get',
    '[result] performance',
    '',
    'Assistant: The laptop now runs the performance profile.',
  ].join('\n'));
  assert.deepEqual(detailItems(distillOffline(tuned, englishRarity()).specificContext), ['powerprofilesctl']);
});
