import dns from 'node:dns';
import net from 'node:net';
import { AppError } from '../../platform/errors.js';

/**
 * Server-side request forgery guard. A webhook URL is chosen by a tenant, and the service sends to
 * it from inside the operator's network, so it must never reach the service's own machine, the
 * private network or the cloud metadata endpoint. The address is checked when the URL is saved and
 * again on the address actually connected to (a name can resolve elsewhere later: DNS rebinding).
 */

// Ranges a tenant may not reach. IPv4-mapped/compatible and NAT64 IPv6 forms are unwrapped first.
const BLOCKED: Array<[string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'protocol assignments'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['fc00::', 7, 'ipv6', 'private'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const RANGES = BLOCKED.map(([address, prefix, type, label]) => {
  const list = new net.BlockList();
  list.addSubnet(address, prefix, type);
  return { type, label, list };
});

/** The 16 bytes of an IPv6 address (any textual form, including a trailing dotted quad). */
function ipv6Bytes(address: string): number[] | null {
  let text = address.split('%')[0]!;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const parts = quad[1]!.split('.').map(Number);
    text = text.slice(0, -quad[1]!.length) + `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8) return null;
  return groups.flatMap((g) => {
    const v = parseInt(g, 16);
    return [v >> 8, v & 0xff];
  });
}

/** The IPv4 address an IPv6 address stands for (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d). */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  if (!b) return null;
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const mapped = zeros(0, 10) && b[10] === 0xff && b[11] === 0xff;
  const compatible = zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && b[15] === 1);
  const nat64 = b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12);
  return mapped || compatible || nat64 ? b.slice(12).join('.') : null;
}

/** Why an address may not be reached, or null when it may. */
export function forbiddenAddressReason(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return forbiddenAddressReason(v4);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const bare = address.split('%')[0]!;
  return RANGES.find((r) => r.type === type && r.list.check(bare, type))?.label ?? null;
}

/** The host as the allow-list and the connection see it: lowercase, IPv6 without brackets. */
export const hostOf = (url: URL): string => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');

export const isAllowListed = (url: URL, allowedHosts: readonly string[]): boolean => allowedHosts.includes(hostOf(url));

const refuse = (message: string) => new AppError('WEBHOOK_URL_FORBIDDEN', message);

/** Names that always mean this machine, whatever DNS says (RFC 6761). */
const LOCAL_NAME = /(^|\.)localhost\.?$/;

/**
 * Checks a URL before it is saved: https (or an allow-listed host), and a host that is not, and
 * does not resolve to, a forbidden address. A name that does not resolve now is accepted: DNS can
 * be down or the receiver not yet published, and the address is checked again at delivery.
 */
export async function assertWebhookUrl(raw: string, allowedHosts: readonly string[]): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'url is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('url must use https');
  const allowed = isAllowListed(url, allowedHosts);
  if (allowed) return url;
  if (url.protocol !== 'https:') throw refuse('url must use https (http only for hosts on WEBHOOK_ALLOWED_HOSTS)');
  const host = hostOf(url);
  if (LOCAL_NAME.test(host)) throw refuse(`url host ${host} is this machine`);
  const addresses = net.isIP(host) ? [host] : await resolveAll(host);
  for (const address of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) throw refuse(`url host ${host} is a ${reason} address (${address})`);
  }
  return url;
}

async function resolveAll(host: string): Promise<string[]> {
  try {
    return (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    return [];
  }
}

export class ForbiddenAddressError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_FORBIDDEN';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses forbidden addresses, so the address checked is the
 * one connected to. (Hosts written as IP literals never reach lookup: check them with
 * assertDeliveryTarget first.)
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    for (const a of addresses) {
      const reason = forbiddenAddressReason(a.address);
      if (reason) return callback(new ForbiddenAddressError(`${hostname} resolves to a ${reason} address (${a.address})`), []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    callback(null, first.address, first.family);
  });
}

/** The delivery-time check of what lookup does not see: scheme, local names and IP literals. */
export function assertDeliveryTarget(url: URL): void {
  if (url.protocol !== 'https:') throw new ForbiddenAddressError('url must use https');
  const host = hostOf(url);
  if (LOCAL_NAME.test(host)) throw new ForbiddenAddressError(`${host} is this machine`);
  if (net.isIP(host)) {
    const reason = forbiddenAddressReason(host);
    if (reason) throw new ForbiddenAddressError(`${host} is a ${reason} address`);
  }
}
