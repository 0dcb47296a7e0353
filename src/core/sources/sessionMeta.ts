import type { AgentKind, ConversationMeta, Message } from '../model';
import type { ParseInput } from './adapter';

/** What a one-session log's records say of its session (Codex, Qwen Code, Pi, Copilot CLI). */
export interface SessionFacts {
  sessionId?: string;
  project?: string;
  gitBranch?: string;
  title?: string;
  startedAt?: string;
  model?: string;
  parentSessionId?: string;
}

/**
 * The meta of a one-session log's conversation. Resumed mid-file, the identity is the one the head's parse fixed
 * (the conversation key derives from it) and the resume point's facts come first, since the lines read now may
 * not hold them; a title the records give wins over the resume's (a session renamed since).
 */
export function sessionMeta(
  agent: AgentKind,
  input: ParseInput,
  facts: SessionFacts,
  sessionIdOfFile: (file: string) => string,
  messages: readonly Message[],
): ConversationMeta {
  const resume = input.resume;
  const identity = resume
    ? { sessionId: resume.sessionId, line: resume.line }
    : { sessionId: facts.sessionId ?? sessionIdOfFile(input.file), line: input.lines[0]?.line ?? 1 };
  const parent = resume?.parentSessionId ?? facts.parentSessionId;
  const project = resume?.project ?? facts.project;
  const gitBranch = resume?.gitBranch ?? facts.gitBranch;
  const title = facts.title || resume?.title;
  const startedAt = resume?.startedAt ?? facts.startedAt ?? messages[0]?.timestamp;
  const model = resume?.model ?? facts.model;
  return {
    agent,
    ...identity,
    isSubagent: false,
    ...(parent !== undefined ? { parentSessionId: parent } : {}),
    ...(project !== undefined ? { project } : {}),
    ...(gitBranch !== undefined ? { gitBranch } : {}),
    ...(title ? { title } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
    ...(model !== undefined ? { model } : {}),
  };
}
