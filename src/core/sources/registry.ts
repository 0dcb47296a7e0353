import type { SourceAdapter } from './adapter';
import { aiderAdapter } from './aider';
import { ampAdapter } from './amp';
import { antigravityAdapter } from './antigravity';
import { claudeCodeAdapter } from './claudeCode';
import { clineAdapter, kiloLegacyAdapter, rooCodeAdapter } from './cline';
import { codexAdapter } from './codex';
import { continueAdapter } from './continue';
import { cursorAdapter } from './cursor';
import { copilotAdapter, copilotLogAdapter } from './copilot';
import { copilotCliAdapter } from './copilotCli';
import { geminiAdapter, geminiLogAdapter, qwenDocumentAdapter } from './gemini';
import { junieAdapter } from './junie';
import { kimiAdapter } from './kimi';
import { kiroAdapter } from './kiro';
import { kiroDbAdapter } from './kiroCli';
import { kiroIdeAdapter } from './kiroIde';
import { kiroIdeChatAdapter } from './kiroIdeChat';
import { kiloAdapter, kiloDbAdapter, openCodeAdapter, openCodeDbAdapter } from './opencode';
import { openHandsAdapter } from './openHands';
import { piAdapter } from './pi';
import { qwenAdapter } from './qwen';
import { specstoryAdapter } from './specstory';
import { traeAdapter, traeGlobalAdapter } from './trae';
import { warpAdapter } from './warp';
import { zedAdapter } from './zed';

/**
 * Every supported agent format (an agent with two file forms has an adapter per form). Adapters whose
 * storage layout proves the format claim by path; the others are told apart by sniffing, in this order,
 * markdown ones by path.
 */
export const ADAPTERS: readonly SourceAdapter[] = [
  // told apart before the older agents' sniffers take them: Qwen Code's records carry Claude Code's fields (uuid,
  // sessionId, cwd, type user), Pi's `message` entries look like a legacy Codex rollout's items
  qwenAdapter, qwenDocumentAdapter, piAdapter, kimiAdapter,
  claudeCodeAdapter, codexAdapter, copilotLogAdapter, geminiLogAdapter, geminiAdapter, copilotAdapter,
  clineAdapter, rooCodeAdapter, specstoryAdapter, aiderAdapter,
  continueAdapter, cursorAdapter, openCodeAdapter, openCodeDbAdapter,
  copilotCliAdapter, ampAdapter,
  kiloLegacyAdapter, kiloAdapter, kiloDbAdapter, zedAdapter, kiroAdapter, kiroDbAdapter, kiroIdeAdapter, kiroIdeChatAdapter,
  traeAdapter, traeGlobalAdapter, openHandsAdapter, warpAdapter, antigravityAdapter, junieAdapter,
];
