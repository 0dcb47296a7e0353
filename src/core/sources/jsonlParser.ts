import type { ConversationMeta, Message } from '../model';
import { type ParseInput, type ParseOutput, parseJsonLine, SkipCounter } from './adapter';
import type { SourceLine } from './lines';
import { hasContent } from './message';

/**
 * The outline of a reader whose file is one conversation, a record per line (Pi, Qwen Code, Copilot CLI, Factory
 * Droid, Kimi Code, Antigravity): each line parsed, a malformed or oversized one counted, the record handed to
 * `consume`; once every line is read, `finish`, then the messages with content make the conversation.
 */
export abstract class JsonlConversationParser {
  protected readonly skips = new SkipCounter();
  protected readonly messages: Message[] = [];

  constructor(protected readonly input: ParseInput) {}

  run(): ParseOutput {
    for (const line of this.input.lines) {
      const rec = parseJsonLine(line, this.skips);
      if (rec) this.consume(rec, line);
    }
    this.finish();
    const messages = this.messages.filter(hasContent);
    const conversations = messages.length === 0 ? [] : [{ sourceFile: this.input.file, meta: this.buildMeta(messages), messages }];
    return { conversations, skipped: this.skips.lines };
  }

  protected abstract consume(rec: Record<string, unknown>, line: SourceLine): void;

  /** What is left once every line is read (notes beside the log, streamed text to trim). */
  protected finish(): void {}

  protected abstract buildMeta(messages: readonly Message[]): ConversationMeta;
}
