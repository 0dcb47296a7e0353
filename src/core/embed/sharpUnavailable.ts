/**
 * Stands in for `sharp` in the bundled embedding worker. transformers.js requires sharp at load time for its
 * image pipelines and refuses to load without one; Agent Recall only embeds text, so shipping libvips
 * (18 MB) would be dead weight. Any image call fails with this message instead.
 */
function sharpUnavailable(): never {
  throw new Error('Image processing is not available in Agent Recall (text embeddings only).');
}

export = sharpUnavailable;
