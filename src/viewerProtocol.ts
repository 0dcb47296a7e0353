/**
 * The exchange viewer's message protocol, shared by the host (src/host/exchangeViewer.ts) and its webview
 * (webview/viewer.ts, which imports these types only).
 */
import type { ExchangeView } from './core/exchangeView';

export type { DistilledCard, ExchangeView, Turn } from './core/exchangeView';

// webview -> host
export type ViewerRequest =
  | { readonly type: 'ready' }
  | { readonly type: 'step'; readonly direction: 'previous' | 'next' }
  | { readonly type: 'openRaw' }
  | { readonly type: 'openFile'; readonly path: string }
  /** An http(s) link the user clicked; the host checks it again and asks the user, showing its whole URL. */
  | { readonly type: 'openLink'; readonly href: string };

// host -> webview
export type ViewerMessage =
  | { readonly type: 'show'; readonly view: ExchangeView }
  | { readonly type: 'missing'; readonly exchangeId: string };

/** Messages from a webview are untrusted input: check the shape before acting on one. */
export function isViewerRequest(m: unknown): m is ViewerRequest {
  if (typeof m !== 'object' || m === null) return false;
  const r = m as Record<string, unknown>;
  switch (r['type']) {
    case 'ready':
    case 'openRaw':
      return true;
    case 'step':
      return r['direction'] === 'previous' || r['direction'] === 'next';
    case 'openFile':
      return typeof r['path'] === 'string';
    case 'openLink':
      return typeof r['href'] === 'string';
    default:
      return false;
  }
}
