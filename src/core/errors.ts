/** Errors core code throws on purpose. `code` lets callers branch without parsing messages. */
export type RecallErrorCode =
  | 'store-corrupt'
  | 'store-too-new'
  /** Another process holds the store's lock longer than the wait, or has it open while a repair would move it. */
  | 'store-locked'
  | 'store-io'
  /** The disk that holds the store has no room for a write (SQLITE_FULL): the write is rolled back, nothing else lost. */
  | 'store-full'
  | 'source-unreadable'
  | 'bad-argument'
  /** An embedding model could not be loaded or stopped working; semantic search falls back to lexical. */
  | 'model-unavailable'
  /** The LLM distillation prompt file (prompts/*.md) is missing from the installation. */
  | 'prompt-missing';

export class RecallError extends Error {
  constructor(
    readonly code: RecallErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RecallError';
  }
}
