import { ROOM_TYPES, type DistilledExchange, type RoomAssignment, type RoomType } from './types';

/**
 * Validation of an LLM's distillation answer (the JSON the prompt asks for). Strict about the shape and
 * the bounds, so a bad answer is repaired or recorded instead of stored; lenient only about wrapping
 * (a code fence or a sentence around the object), which models add despite being told not to.
 */

export type ParseResult = { readonly ok: true; readonly value: DistilledExchange } | { readonly ok: false; readonly error: string };

/** Bounds: a 1–2 sentence core and one detail; generous enough for long identifiers and error lines. */
export const LIMITS = { coreChars: 600, contextChars: 400, roomKeyChars: 120, roomLabelChars: 120, minRooms: 1, maxRooms: 3 } as const;

/** The outermost `{…}` of the answer: strips fences and chatter around the object. */
function extractObject(text: string): string | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}

function str(value: unknown, field: string, max: number, allowEmpty: boolean): string | { error: string } {
  if (typeof value !== 'string') return { error: `"${field}" must be a string` };
  const s = value.trim();
  if (!allowEmpty && !s) return { error: `"${field}" must not be empty` };
  if (s.length > max) return { error: `"${field}" is ${s.length} characters; at most ${max}` };
  return s;
}

function room(value: unknown, i: number): RoomAssignment | { error: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { error: `room ${i + 1} must be an object` };
  const r = value as Record<string, unknown>;
  const type = r['room_type'];
  if (typeof type !== 'string' || !ROOM_TYPES.includes(type as RoomType)) {
    return { error: `room ${i + 1}: "room_type" must be one of ${ROOM_TYPES.join(', ')}` };
  }
  const key = str(r['room_key'], `room ${i + 1} room_key`, LIMITS.roomKeyChars, false);
  if (typeof key !== 'string') return key;
  const label = str(r['room_label'], `room ${i + 1} room_label`, LIMITS.roomLabelChars, false);
  if (typeof label !== 'string') return label;
  const relevance = r['relevance'];
  if (typeof relevance !== 'number' || !Number.isFinite(relevance) || relevance < 0 || relevance > 1) {
    return { error: `room ${i + 1}: "relevance" must be a number from 0 to 1` };
  }
  return { type: type as RoomType, key, label, relevance };
}

/** Parses and validates one answer. `files_touched` and other extra fields are ignored, never stored. */
export function parseDistillOutput(text: string): ParseResult {
  const json = extractObject(text);
  if (json === undefined) return { ok: false, error: 'the answer holds no JSON object' };
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (err) {
    return { ok: false, error: `the answer is not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  return validateDistilled(data);
}

/** Validates one parsed object of the prompt's shape. */
export function validateDistilled(data: unknown): ParseResult {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { ok: false, error: 'the answer is not a JSON object' };
  const d = data as Record<string, unknown>;
  const core = str(d['exchange_core'], 'exchange_core', LIMITS.coreChars, false);
  if (typeof core !== 'string') return { ok: false, ...core };
  const context = str(d['specific_context'], 'specific_context', LIMITS.contextChars, true);
  if (typeof context !== 'string') return { ok: false, ...context };
  const rooms = d['room_assignments'];
  if (!Array.isArray(rooms) || rooms.length < LIMITS.minRooms || rooms.length > LIMITS.maxRooms) {
    return { ok: false, error: `"room_assignments" must be an array of ${LIMITS.minRooms} to ${LIMITS.maxRooms} rooms` };
  }
  const parsed: RoomAssignment[] = [];
  for (const [i, r] of rooms.entries()) {
    const p = room(r, i);
    if ('error' in p) return { ok: false, error: p.error };
    parsed.push(p);
  }
  return { ok: true, value: { exchangeCore: core, specificContext: context, rooms: parsed } };
}

/**
 * Parses the answer to a batch prompt: a JSON array of objects carrying `id` 1..count. Returns one result
 * per exchange, in order; an exchange missing from the answer, or invalid in it, gets a failure.
 */
export function parseBatchOutput(text: string, count: number): ParseResult[] {
  const missing = (error: string): ParseResult[] => Array.from({ length: count }, () => ({ ok: false, error }));
  const start = text.indexOf('[');
  const end = text.lastIndexOf(']');
  if (start < 0 || end <= start) return missing('the batch answer holds no JSON array');
  let data: unknown;
  try {
    data = JSON.parse(text.slice(start, end + 1));
  } catch (err) {
    return missing(`the batch answer is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!Array.isArray(data)) return missing('the batch answer is not a JSON array');
  const results = missing('missing from the batch answer');
  for (const item of data) {
    const id = item && typeof item === 'object' ? (item as Record<string, unknown>)['id'] : undefined;
    if (typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= count) results[id - 1] = validateDistilled(item);
  }
  return results;
}

/** The follow-up message of the one repair attempt: names what was wrong and asks for the object only. */
export function repairRequest(error: string): string {
  return (
    `Your answer could not be used: ${error}. Reply again with ONLY one JSON object with the fields ` +
    `"exchange_core" (string), "specific_context" (string) and "room_assignments" (1-3 objects with ` +
    `"room_type" file|concept|workflow, "room_key", "room_label", "relevance" 0.0-1.0). No prose, no code fence.`
  );
}
