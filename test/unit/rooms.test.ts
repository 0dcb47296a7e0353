import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RoomRegistry, roomId, withinOneEdit } from '../../src/core/distill/rooms';
import { normaliseKey, stem } from '../../src/core/roomKey';
import type { RoomAssignment } from '../../src/core/distill/types';

const concept = (key: string, relevance = 0.8, label = key): RoomAssignment => ({ type: 'concept', key, label, relevance });

test('case, separators and camelCase normalise to one key', () => {
  const keys = ['Auth Service', 'auth-service', 'auth_service', 'AuthService', 'AUTH SERVICE', 'auth-services', 'auth.service'];
  assert.deepEqual(new Set(keys.map((k) => normaliseKey('concept', k))), new Set(['auth_servic']));
});

test('a word after a digit starts a camelCase part: p5Instance is the room of "p5 instance"; a code stays whole', () => {
  assert.equal(normaliseKey('concept', 'p5Instance'), normaliseKey('concept', 'p5 instance'));
  assert.equal(normaliseKey('concept', 'H264Decoder'), normaliseKey('concept', 'h264 decoder'));
  assert.equal(normaliseKey('concept', 'E2E'), 'e2e');
  assert.equal(normaliseKey('concept', 'E2E testing'), normaliseKey('concept', 'e2e tests'));
});

test('near duplicates seen on the corpus are one key: p5Instance / p5instance, MarkdownV2 / Markdown, sudo_prompt_v2 / v3', () => {
  assert.equal(normaliseKey('concept', 'p5instance'), normaliseKey('concept', 'p5Instance'));
  assert.equal(normaliseKey('concept', 'ec2instance'), normaliseKey('concept', 'EC2 instance'));
  assert.equal(normaliseKey('concept', 'MarkdownV2'), normaliseKey('concept', 'Markdown'));
  assert.equal(normaliseKey('concept', 'Markdown v2'), normaliseKey('concept', 'markdown'));
  assert.equal(normaliseKey('concept', 'sudo_prompt_v2'), normaliseKey('concept', 'sudo_prompt_v3'));
  // codes stay whole, and a leading version mark is a name of its own
  for (const code of ['e2e', 'k8s', 'i18n', '2fa', 'p2p']) assert.equal(normaliseKey('concept', code), code);
  assert.notEqual(normaliseKey('concept', 'V8 engine'), normaliseKey('concept', 'engine'));
  assert.equal(normaliseKey('concept', 'V2'), 'v2');
});

test('plurals and inflections of one word merge; word order does not matter', () => {
  const family = ['authentication', 'Authentications', 'authenticate', 'authenticating', 'authenticated'];
  assert.equal(new Set(family.map((k) => normaliseKey('concept', k))).size, 1);
  assert.equal(normaliseKey('concept', 'retry timeout'), normaliseKey('concept', 'timeout-retries'));
  assert.equal(normaliseKey('concept', 'caching'), normaliseKey('concept', 'Cache'));
  assert.equal(normaliseKey('concept', 'embeddings'), normaliseKey('concept', 'embedding'));
  assert.equal(normaliseKey('concept', 'indexes'), normaliseKey('concept', 'index'));
  // an acronym's plural (seen on the corpus: "user_id" and "user IDs" were two rooms)
  assert.equal(normaliseKey('concept', 'user IDs'), normaliseKey('concept', 'user_id'));
  assert.equal(normaliseKey('concept', 'APIs'), normaliseKey('concept', 'API'));
  assert.notEqual(normaliseKey('concept', 'CSS'), normaliseKey('concept', 'CS'));
  assert.equal(stem('status'), 'status');
  assert.equal(stem('process'), 'process');
});

test('an agent in -ctor is the room of its act in -ction: fact extractor, fact extraction', () => {
  const family = ['fact extraction', 'fact extractor', 'fact extractions', 'Fact Extractors'];
  assert.equal(new Set(family.map((k) => normaliseKey('concept', k))).size, 1);
  assert.equal(normaliseKey('concept', 'garbage collector'), normaliseKey('concept', 'garbage collection'));
  // the act keeps its ending (production is not product), short agents theirs (a factor is no faction)
  assert.notEqual(normaliseKey('concept', 'production'), normaliseKey('concept', 'product'));
  assert.notEqual(normaliseKey('concept', 'factor'), normaliseKey('concept', 'faction'));
  assert.equal(stem('vector'), 'vector');
});

test('abbreviations and synonyms stay separate rooms (documented decision)', () => {
  assert.notEqual(normaliseKey('concept', 'Auth'), normaliseKey('concept', 'authentication'));
  assert.notEqual(normaliseKey('concept', 'db'), normaliseKey('concept', 'database'));
});

test('non-Latin keys are lower-cased, never stemmed', () => {
  assert.equal(normaliseKey('concept', 'Ошибки Сборки'), 'ошибки_сборки');
  assert.equal(normaliseKey('concept', 'Configuración'), 'configuración');
  assert.equal(normaliseKey('concept', '---'), '');
});

test('file keys are paths: lower-cased, separators unified, never stemmed', () => {
  assert.equal(normaliseKey('file', './src\\Auth\\Tokens.ts'), 'src/auth/tokens.ts');
  assert.notEqual(normaliseKey('file', 'src/auth.ts'), normaliseKey('file', 'src/auth.test.ts'));
});

test('room ids hash type, key and project', () => {
  assert.equal(roomId('concept', 'auth', '/p'), roomId('concept', 'auth', '/p'));
  assert.notEqual(roomId('concept', 'auth', '/p'), roomId('concept', 'auth', '/q'));
  assert.notEqual(roomId('concept', 'auth', '/p'), roomId('workflow', 'auth', '/p'));
});

test('the registry merges aliases within one exchange and across exchanges; each keeps its own words as label', () => {
  const reg = new RoomRegistry();
  const first = reg.resolve([concept('Auth Service', 0.9, 'Auth service'), concept('auth-services', 0.95)], '/p');
  assert.equal(first.length, 1, 'two aliases in one proposal become one room');
  assert.equal(first[0]!.relevance, 0.95, 'the higher relevance is kept');
  assert.equal(first[0]!.label, 'auth-services', 'the label of the kept proposal');
  const second = reg.resolve([concept('AuthService', 0.5)], '/p');
  assert.equal(second[0]!.id, first[0]!.id);
  assert.equal(second[0]!.label, 'AuthService', "the room's label is decided over the store (roomStats.ts)");
  const other = reg.resolve([concept('AuthService', 0.5)], '/other');
  assert.notEqual(other[0]!.id, first[0]!.id, 'another project is another room');
});

test('one-letter typos merge into known long keys only', () => {
  const reg = new RoomRegistry();
  reg.add('concept', 'connection_pool', '/p');
  const typo = reg.resolve([concept('conection pool')], '/p');
  assert.equal(typo[0]!.key, 'connection_pool');
  // the offline distiller's registry does not merge: what was seen first must not decide a key
  assert.equal(new RoomRegistry(false).resolve([concept('conection pool')], '/p')[0]!.key, 'conection_pool');
  // short keys are too close to each other to guess: `cat` and `cut` stay apart
  reg.add('concept', 'cat', '/p');
  assert.equal(reg.resolve([concept('cut')], '/p')[0]!.key, 'cut');
  assert.ok(withinOneEdit('abcdefgh', 'abcdfegh'), 'adjacent swap');
  assert.ok(!withinOneEdit('abcdefgh', 'abcdxxgh'));
});

test('at most `max` rooms, highest relevance first; empty keys and bad relevances are handled', () => {
  const reg = new RoomRegistry();
  const rooms = reg.resolve(
    [
      concept('alpha', 0.2),
      concept('beta', Number.NaN),
      concept('gamma', 7),
      { type: 'workflow', key: 'tests', label: 'Tests', relevance: 0.6 },
      { type: 'file', key: 'src/a.ts', label: 'src/a.ts', relevance: 0.9 },
      concept('!!!', 0.99),
    ],
    undefined,
    3,
  );
  assert.deepEqual(rooms.map((r) => r.key), ['gamma', 'src/a.ts', 'test']);
  assert.equal(rooms[0]!.relevance, 1);
});
