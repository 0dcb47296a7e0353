/** Errors core code throws on purpose. `code` lets callers branch without parsing messages. */
export type RecallErrorCode =
  | 'store-corrupt'
  | 'store-too-new'
  | 'store-locked'
  | 'store-io'
  | 'source-unreadable'
  | 'bad-argument';

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
