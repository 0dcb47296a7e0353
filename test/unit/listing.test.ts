import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { tempDir } from './helpers';

/**
 * The listing the Marketplace and Open VSX show (scripts/listing.mjs, the release workflow's dry run of
 * publishing: neither ovsx nor vsce can publish as a dry run) is complete in package.json, and the check does
 * catch what those registries reject or show badly.
 */

const ROOT = path.resolve(__dirname, '../../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;

interface Listing {
  listingProblems(manifest: Record<string, unknown>, root?: string): string[];
  pngSize(bytes: Buffer): { width: number; height: number } | undefined;
}
const listing = async () => (await import(pathToFileURL(path.join(ROOT, 'scripts/listing.mjs')).href)) as Listing;

test('package.json is ready for the Marketplace and Open VSX', async () => {
  const { listingProblems, pngSize } = await listing();
  assert.deepEqual(listingProblems(manifest), []);
  assert.deepEqual(pngSize(readFileSync(path.join(ROOT, String(manifest['icon'])))), { width: 128, height: 128 });
});

test('the check names what a registry would reject or show badly', async () => {
  const { listingProblems } = await listing();
  const root = tempDir('recall-listing-');
  copyFileSync(path.join(ROOT, 'LICENSE'), path.join(root, 'LICENSE'));
  writeFileSync(path.join(root, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  const broken = {
    ...manifest,
    icon: 'icon.svg',
    categories: ['Other', 'Memory'],
    galleryBanner: { color: 'blue' },
    repository: undefined,
  };
  assert.deepEqual(listingProblems(broken, root), [
    'the icon icon.svg is not a PNG (the Marketplace takes no SVG icon)',
    'galleryBanner.color must be a colour like #1e3a8a',
    'galleryBanner.theme must be "dark" or "light"',
    'unknown category "Memory"; one of AI, Azure, Chat, Data Science, Debuggers, Education, Extension Packs, Formatters, Keymaps, Language Packs, Linters, Machine Learning, Notebooks, Other, Programming Languages, SCM Providers, Snippets, Testing, Themes, Visualization',
    'repository.url must be an https URL: the listing links it, vsce resolves the README\'s relative links against it',
  ]);
  const noLicence = tempDir('recall-listing-');
  copyFileSync(path.join(ROOT, String(manifest['icon'])), path.join(noLicence, 'icon.png'));
  assert.deepEqual(listingProblems({ ...manifest, icon: 'icon.png', categories: ['Other'] }, noLicence), [
    'no LICENSE file: Open VSX shows the licence text from it',
    'no category but "Other": the extension is found in none',
  ]);
});
