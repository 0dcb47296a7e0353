import * as vscode from 'vscode';
import { linkTarget } from '../core/linkTarget';
import { visible } from '../core/visible';
import { log } from './log';

const OPEN = 'Open Link';
const COPY = 'Copy Link';

/**
 * Follows a link from transcript text once the user has seen its whole URL and chosen to (a modal dialog),
 * for every link, not only for the domains VS Code would ask about: VS Code opens `localhost` and any domain
 * the user once trusted for their own work without asking, and on code-server a local port is forwarded to
 * the workbench's own origin. Transcript text is not the user's: a link's text can say anything. Returns
 * whether it was opened.
 */
export async function openTranscriptLink(href: string): Promise<boolean> {
  const target = linkTarget(href);
  if (!target) {
    log.warn(`Refused to open a non-http(s) link from a transcript: ${visible(href.slice(0, 200))}`);
    return false;
  }
  const detail = [
    target.url,
    ...(target.written ? [`Written in the transcript as ${target.written}`] : []),
    ...(target.local ? [`It points to ${target.local}: a page there can use what your browser can reach on it.`] : []),
    'The link comes from the text of a transcript.',
  ].join('\n\n');
  const choice = await vscode.window.showWarningMessage('Open a link from a transcript?', { modal: true, detail }, OPEN, COPY);
  if (choice === COPY) await vscode.env.clipboard.writeText(target.url);
  return choice === OPEN && vscode.env.openExternal(vscode.Uri.parse(target.url, true));
}
