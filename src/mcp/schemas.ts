import { z } from 'zod';
import { AGENT_KINDS } from '../core/model';

/**
 * The MCP tools' input schemas. The SDK validates every call against them (and lists them as JSON Schema),
 * so a tool body only ever sees well-formed input; what a schema cannot know (an id that is not stored, a
 * path no exchange touched) is answered by the tool itself.
 */

/** Token budgets (cl100k) of an answer: enough for a few hits at the low end, a long exchange at the top. */
export const MIN_TOKENS = 100;
export const MAX_TOKENS = 20_000;
export const DEFAULT_TOKENS = 2_000;

const maxTokens = z
  .number()
  .int()
  .min(MIN_TOKENS)
  .max(MAX_TOKENS)
  .optional()
  .describe(`Token budget (cl100k) of the answer; default ${DEFAULT_TOKENS}.`);

/** An ISO date (2025-01-31) or date-time (2025-01-31T12:00:00Z). */
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/, 'expected an ISO date like 2025-01-31 or 2025-01-31T12:00:00Z')
  .refine((v) => !Number.isNaN(Date.parse(v)), 'not a real date');

export const searchInput = {
  query: z.string().trim().min(1, 'query must not be empty').max(2_000).describe('What to look for: natural language or keywords.'),
  limit: z.number().int().min(1).max(50).optional().describe('How many exchanges to return at most (default 8, at most 50).'),
  agent: z.array(z.enum(AGENT_KINDS as [string, ...string[]])).max(AGENT_KINDS.length).optional().describe('Only exchanges with these agents.'),
  since: isoDate.optional().describe('Only exchanges that started at or after this date (ISO).'),
  until: isoDate.optional().describe('Only exchanges that started at or before this date (a bare date includes the whole day).'),
  file: z.string().trim().min(1).max(1_000).optional().describe('Only exchanges that touched this file (workspace-relative or absolute path).'),
  room: z.string().trim().min(1).max(200).optional().describe('Only exchanges of this room (a room id from a search result).'),
  conversation: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Only exchanges of this conversation, every match of it (a conversation id from a search result that says more were left out).'),
  maxTokens,
};

export const readExchangeInput = {
  id: z
    .string()
    .trim()
    .regex(/^[\w.-]{6,64}$/, 'expected an exchange id (at least 6 letters, digits, - or _) from search, recent or file_history')
    .describe('The exchange id, or a unique prefix of at least 6 characters.'),
  maxTokens,
};

export const fileHistoryInput = {
  path: z.string().trim().min(1, 'path must not be empty').max(1_000).describe('The file: workspace-relative (src/auth.ts) or absolute.'),
  limit: z.number().int().min(1).max(100).optional().describe('How many exchanges at most (default 20, at most 100).'),
  maxTokens,
};

export const recentInput = {
  limit: z.number().int().min(1).max(100).optional().describe('How many exchanges at most (default 20, at most 100).'),
  maxTokens,
};

type Shape = Record<string, z.ZodType>;
type Input<S extends Shape> = { [K in keyof S]: z.output<S[K]> };

export type SearchInput = Input<typeof searchInput>;
export type ReadExchangeInput = Input<typeof readExchangeInput>;
export type FileHistoryInput = Input<typeof fileHistoryInput>;
export type RecentInput = Input<typeof recentInput>;
