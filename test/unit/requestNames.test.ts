import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detailItems } from '../../src/core/distill/details';
import { distillOffline } from '../../src/core/distill/offline';
import { type NameEvidence, requestNames } from '../../src/core/distill/requestNames';
import { englishRarity } from '../../src/core/distill/wordRarity';
import { distillInput as input } from './distillHelpers';

/** The things a request names, and the detail line that carries those its cut headline could not hold (issue 39). */

const CAMERAS = input(
  'tidy this up please: move every camera related note and script into vault/Garden-Cams, and keep reolink(nvr) apart from tapo(C200)',
  [
    'Assistant: I will sort the camera notes first.',
    '[tool] Bash mkdir -p "/home/dev/Vault/Garden-Cams/nvr" "/home/dev/Vault/Garden-Cams/cloud"',
    '[tool] Bash git mv notes/reolink-setup.md notes/tapo-pairing.md scripts/snapshot.sh /home/dev/Vault/Garden-Cams/',
    '[result] ok',
    '',
    'Assistant: Everything about the garden cameras now lives in one folder, with the recorder notes and the cloud camera notes kept in separate subfolders and the snapshot script beside them.',
  ].join('\n'),
);

test('a request cut before the folder it names: the detail line carries the folder', () => {
  const d = distillOffline(CAMERAS, englishRarity());
  // the headline's request stops before the folder (its share of the 140 characters)
  assert.doesNotMatch(d.exchangeCore, /Garden-Cams/, d.exchangeCore);
  assert.ok(detailItems(d.specificContext).includes('vault/Garden-Cams'), d.specificContext);
  // each detail is said verbatim in the exchange
  for (const item of detailItems(d.specificContext)) assert.ok(CAMERAS.verbatim.includes(item), item);
});

/** Evidence as an exchange would give it: these words written with a capital, these texts in a tool call. */
function evidence(capitalised: readonly string[], toolText = ''): NameEvidence {
  return {
    writtenAsName: (word) => capitalised.includes(word),
    inToolCall: (text) => toolText.toLowerCase().includes(text.toLowerCase()),
  };
}

test('names of a request: shapes, code spans, and rare words the exchange writes as names', () => {
  const stats = englishRarity();
  assert.deepEqual(
    requestNames('I would lean towards ramda for `deepClone`, keep the config in src/clone.ts and the Lenovo Legion profile', stats, evidence(['ramda', 'lenovo', 'legion'])),
    ['deepClone', 'ramda', 'src/clone.ts', 'Lenovo Legion'],
  );
  // a rare word the exchange writes in lower case is jargon or a typo; a common word with a capital no name
  assert.deepEqual(requestNames('the deprecated hooks are avalible under Phase settings', stats, evidence(['phase'])), []);
});

test('names of a request: no choice of words, link, redaction marker or escape', () => {
  const stats = englishRarity();
  const none = evidence(['proxmox']);
  assert.deepEqual(requestNames('make the bold/italic toggle and the suspend/resume hook work', stats, none), []);
  // the same shape is a folder when the exchange used it as one
  assert.deepEqual(requestNames('move it into notes/archive', stats, evidence([], 'mkdir -p Notes/Archive')), ['notes/archive']);
  assert.deepEqual(requestNames('see https://example.com/a_b and [REDACTED_JWT] and approval\\n\\nUsage', stats, none), []);
  // a name word opening a sentence is still one: the exchange writes it so
  assert.deepEqual(requestNames('Proxmox failed again', stats, none), ['Proxmox']);
  assert.deepEqual(requestNames('restart zimaboard(proxmox), then check', stats, none), ['zimaboard(proxmox)']);
});
