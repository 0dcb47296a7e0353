import { isIPv4 } from 'node:net';
import { visible } from './visible';

/**
 * Where a link from a transcript would take the user, said before it is followed. Only http(s) links with a
 * host are ever followed; the URL is the one a browser would open (WHATWG-normalised: `http://2130706433/`
 * and `http://0x7f.1/` are both `http://127.0.0.1/`, a Unicode host is its punycode), and a host on this
 * computer or its local network is named as such: a page there runs with the browser's access to local
 * services (on code-server, a forwarded port is the workbench's own origin).
 */
export interface LinkTarget {
  /** The URL that would open, normalised. */
  readonly url: string;
  /** The link as the transcript wrote it, when that differs from `url`, its hidden characters shown. */
  readonly written?: string;
  /** "this computer (127.0.0.1)", "your local network (192.168.1.20)", … when the host is not on the internet. */
  readonly local?: string;
}

/** The link's target, or undefined when it is not an http(s) link with a host (those stay text). */
export function linkTarget(href: string): LinkTarget | undefined {
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    return undefined;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return undefined;
  const written = visible(href);
  const local = localHost(u.hostname);
  return { url: u.href, ...(written !== u.href ? { written } : {}), ...(local ? { local: `${local} (${u.hostname})` } : {}) };
}

const THIS_COMPUTER = 'this computer';
const LOCAL_NETWORK = 'your local network';

/** Whether a (normalised) host names this computer or the local network, and which. */
export function localHost(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[')) return localIPv6(host.slice(1, -1));
  if (isIPv4(host)) return localIPv4(host.split('.').map(Number));
  if (host === 'localhost' || host.endsWith('.localhost')) return THIS_COMPUTER;
  // a name without a dot resolves through the local search domain; these suffixes are never public
  if (!host.includes('.') || /\.(local|internal|lan|home\.arpa)$/.test(host)) return LOCAL_NETWORK;
  return undefined;
}

function localIPv4([a = 0, b = 0]: number[]): string | undefined {
  if (a === 127 || a === 0) return THIS_COMPUTER;
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return LOCAL_NETWORK;
  if ((a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127)) return LOCAL_NETWORK; // link-local; shared (CGNAT, VPNs)
  return undefined;
}

/** IPv6 as the URL parser writes it (compressed, lower-case hex; an IPv4-mapped address as two hex groups). */
function localIPv6(host: string): string | undefined {
  if (host === '::1' || host === '::') return THIS_COMPUTER;
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return localIPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  }
  const first = parseInt(host.split(':')[0] || '0', 16);
  if ((first & 0xffc0) === 0xfe80) return LOCAL_NETWORK; // link-local fe80::/10
  if ((first & 0xfe00) === 0xfc00) return LOCAL_NETWORK; // unique local fc00::/7
  return undefined;
}
