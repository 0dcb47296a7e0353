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

/** An ISO date (2025-01-31) or date-time (2025-01-31T12:00:00Z; seconds, fraction and zone optional). */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

const isoDate = z
  .string()
  .regex(ISO_DATE, 'expected an ISO date like 2025-01-31 or 2025-01-31T12:00:00Z')
  .superRefine((v, ctx) => {
    const problem = notOnTheCalendar(v);
    if (problem) ctx.addIssue({ code: 'custom', message: `${v} is not a real date: ${problem}` });
  });

/**
 * Why an ISO-shaped date is not a real one, or undefined when it is. JavaScript's Date rolls 2025-02-30 over
 * to March 2, so a filter would quietly start from another day.
 */
export function notOnTheCalendar(v: string): string | undefined {
  const m = ISO_DATE.exec(v);
  if (!m) return undefined;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, zoneHours = 0, zoneMinutes = 0] = m.slice(1).map((p) => Number(p ?? 0));
  if (month < 1 || month > 12) return `there is no month ${month}`;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (day < 1 || day > days) return `${MONTHS[month - 1]} ${year} has ${days} days`;
  if (hour > 23 || minute > 59 || second > 59) return 'the time of day is out of range';
  if (zoneHours > 23 || zoneMinutes > 59) return 'the time zone offset is out of range';
  return undefined;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

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

const searchObject = z.object(searchInput);
/** A search tool's input, checked and given its defaults as the SDK's validation does (the server's warm-up asks with it). */
export function searchAsked(query: string): SearchInput {
  return searchObject.parse({ query }) as SearchInput;
}
