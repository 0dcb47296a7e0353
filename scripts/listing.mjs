#!/usr/bin/env node
// `node scripts/listing.mjs`: checks what the Marketplace and Open VSX show of the extension (its listing) in
// package.json, offline: the release workflow runs it before packaging, as the dry run of publishing. Neither
// `ovsx publish` nor `vsce publish` has a dry run; `vsce package` (scripts/package.mjs) checks the rest (the
// README's images and links, the engine, the name).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The Marketplace's categories (VS Code's extension manifest reference). */
export const CATEGORIES = [
  'AI', 'Azure', 'Chat', 'Data Science', 'Debuggers', 'Education', 'Extension Packs', 'Formatters', 'Keymaps',
  'Language Packs', 'Linters', 'Machine Learning', 'Notebooks', 'Other', 'Programming Languages', 'SCM Providers',
  'Snippets', 'Testing', 'Themes', 'Visualization',
];

/** Width and height of a PNG file, from its IHDR chunk; undefined when it is not a PNG. */
export function pngSize(bytes) {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b) || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** What is missing or wrong in the listing of `manifest` (package.json), its files read under `root`. */
export function listingProblems(manifest, root = ROOT) {
  const problems = [];
  const need = (ok, message) => ok || problems.push(message);
  for (const field of ['publisher', 'name', 'displayName', 'description', 'version', 'license']) need(typeof manifest[field] === 'string' && manifest[field].trim() !== '', `package.json has no "${field}"`);
  need(!manifest.description || manifest.description.length <= 300, `the description is ${manifest.description?.length} characters; the listing's tile shows a sentence, keep it within 300`);
  need(existsSync(join(root, 'LICENSE')) || existsSync(join(root, 'LICENSE.md')), 'no LICENSE file: Open VSX shows the licence text from it');

  const icon = typeof manifest.icon === 'string' ? join(root, manifest.icon) : undefined;
  if (!icon) problems.push('package.json has no "icon"');
  else if (!existsSync(icon)) problems.push(`the icon ${manifest.icon} does not exist`);
  else {
    const size = pngSize(readFileSync(icon));
    if (!size) problems.push(`the icon ${manifest.icon} is not a PNG (the Marketplace takes no SVG icon)`);
    else if (size.width !== size.height || size.width < 128) problems.push(`the icon is ${size.width}x${size.height}; it must be square, at least 128x128`);
  }

  const banner = manifest.galleryBanner ?? {};
  need(/^#[0-9a-f]{6}$/i.test(banner.color ?? ''), 'galleryBanner.color must be a colour like #1e3a8a');
  need(banner.theme === 'dark' || banner.theme === 'light', 'galleryBanner.theme must be "dark" or "light"');

  const categories = manifest.categories ?? [];
  for (const c of categories) need(CATEGORIES.includes(c), `unknown category "${c}"; one of ${CATEGORIES.join(', ')}`);
  need(categories.some((c) => c !== 'Other'), 'no category but "Other": the extension is found in none');
  need((manifest.keywords ?? []).length > 0, 'no keywords: they are the listing\'s tags and search terms');

  const url = (v) => (typeof v === 'string' ? v : v?.url);
  need(/^https:\/\//.test(url(manifest.repository) ?? ''), 'repository.url must be an https URL: the listing links it, vsce resolves the README\'s relative links against it');
  need(/^https:\/\//.test(url(manifest.bugs) ?? ''), 'bugs.url must be an https URL: the listing\'s "Report an issue"');
  need(/^https:\/\//.test(manifest.homepage ?? ''), 'homepage must be an https URL');
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const problems = listingProblems(manifest);
  if (problems.length) {
    console.error(`listing: ${problems.length} problem(s) in package.json:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`listing: ${manifest.publisher}.${manifest.name} ${manifest.version} is ready for the Marketplace and Open VSX`);
}
