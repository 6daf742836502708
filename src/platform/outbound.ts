import dns from 'node:dns';
import net from 'node:net';
import type { Agent } from 'undici';
import { AppError, type ErrorCode } from './errors.js';

/**
 * Server-side request forgery guard for every outbound call a tenant can aim (webhooks, LLM
 * providers, messenger and cloud-drive APIs). The service calls out from inside the operator's
 * network, so a tenant's URL must never reach the service's own machine, the private network or the
 * cloud metadata endpoint. The address is checked when the URL is saved and again on the address
 * actually connected to (a name can resolve elsewhere later: DNS rebinding).
 *
 * `OUTBOUND_ALLOWED_HOSTS` (alias `WEBHOOK_ALLOWED_HOSTS`) names hosts that may be reached although
 * local, and over http: on-premises servers and tests.
 */

// Ranges a tenant may not reach, as [address, prefix, label]. The first match names the reason, so
// a narrow range comes before a wide one that holds it. IPv6 forms that embed an IPv4 address are
// unwrapped first (see embeddedIpv4), and the embedded address is refused for its own class.
const BLOCKED_V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
];
const BLOCKED_V6: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0:0', 96, 'IPv4-translated'],
  ['64:ff9b:1::', 48, 'NAT64 local-use'],
  ['100::', 64, 'discard-only'],
  ['2001::', 32, 'Teredo'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['fc00::', 7, 'private'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const rangesOf = (blocked: Array<[string, number, string]>, type: 'ipv4' | 'ipv6') =>
  blocked.map(([address, prefix, label]) => {
    const list = new net.BlockList();
    list.addSubnet(address, prefix, type);
    return { label, list };
  });
const RANGES = { ipv4: rangesOf(BLOCKED_V4, 'ipv4'), ipv6: rangesOf(BLOCKED_V6, 'ipv6') };

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

/**
 * The IPv4 address an IPv6 address stands for: mapped ::ffff:a.b.c.d, IPv4-translated
 * ::ffff:0:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::a.b.c.d, or 6to4 2002:aabb:ccdd::/48.
 * (Teredo and NAT64 local-use are refused whatever they embed.)
 */
function embeddedIpv4(address: string): string | null {
  const b = ipv6Bytes(address);
  if (!b) return null;
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const mapped = zeros(0, 10) && b[10] === 0xff && b[11] === 0xff;
  const translated = zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12);
  const compatible = zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && b[15] === 1);
  const nat64 = b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12);
  if (mapped || translated || compatible || nat64) return b.slice(12).join('.');
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6).join('.');
  return null;
}

/** Why an address may not be reached (the class of address it is), or null when it may. */
export function forbiddenAddressReason(address: string): string | null {
  const family = net.isIP(address);
  if (family === 0) return 'not an IP address';
  const bare = address.split('%')[0]!;
  if (family === 4) return RANGES.ipv4.find((r) => r.list.check(bare, 'ipv4'))?.label ?? null;
  const v4 = embeddedIpv4(bare);
  const inner = v4 ? forbiddenAddressReason(v4) : null;
  return inner ?? RANGES.ipv6.find((r) => r.list.check(bare, 'ipv6'))?.label ?? null;
}

/**
 * Who makes the call, as the messages name it ("webhooks", "LLM providers"), and the error code a
 * refused URL answers with when it is saved.
 */
export interface OutboundSubject {
  label: string;
  code: ErrorCode;
}

export const OUTBOUND: OutboundSubject = { label: 'outbound calls', code: 'OUTBOUND_URL_FORBIDDEN' };

/**
 * What a tenant is told when a name resolves to a forbidden address. It never says which address
 * (nor its class): that would let a tenant map the operator's internal names. The address is logged
 * on the server side instead.
 */
export const resolvesForbidden = (subject: OutboundSubject = OUTBOUND) =>
  `resolves to an address ${subject.label} may not target (loopback, private, link-local or reserved)`;

/** Where a refusal is told on the server side (a Fastify logger fits). */
export interface RefusalLog {
  warn(details: Record<string, unknown>, message: string): void;
}

/** The host as the allow-list and the connection see it: lowercase, IPv6 without brackets. */
export const hostOf = (url: URL): string => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');

export const isAllowListed = (url: URL, allowedHosts: readonly string[]): boolean => allowedHosts.includes(hostOf(url));

/** The hosts a module's calls may reach although local: the shared list, plus any of its own. */
export const allowedHostsOf = (config: { outboundAllowedHosts: readonly string[]; webhookAllowedHosts?: readonly string[] }): string[] => [
  ...new Set([...config.outboundAllowedHosts, ...(config.webhookAllowedHosts ?? [])]),
];

/** "a private address", "an unspecified address". */
const aClass = (reason: string) => `${/^[aeiou]/i.test(reason) ? 'an' : 'a'} ${reason} address`;

/** Names that always mean this machine, whatever DNS says (RFC 6761). */
const LOCAL_NAME = /(^|\.)localhost\.?$/;

/**
 * Checks a URL before it is saved: https (or an allow-listed host), and a host that is not, and
 * does not resolve to, a forbidden address. A name that does not resolve now is accepted: DNS can
 * be down or the server not yet published, and the address is checked again at connect time.
 * `field` names the URL in messages ("url", "baseUrl").
 */
export async function assertOutboundUrl(
  raw: string,
  allowedHosts: readonly string[],
  options: { subject?: OutboundSubject; field?: string; log?: RefusalLog } = {},
): Promise<URL> {
  const subject = options.subject ?? OUTBOUND;
  const field = options.field ?? 'url';
  const refuse = (message: string) => new AppError(subject.code, message);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('VALIDATION_FAILED', `${field} is not a valid absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse(`${field} must use https`);
  const allowed = isAllowListed(url, allowedHosts);
  if (allowed) return url;
  if (url.protocol !== 'https:') throw refuse(`${field} must use https (http only for hosts on OUTBOUND_ALLOWED_HOSTS)`);
  const host = hostOf(url);
  if (LOCAL_NAME.test(host)) throw refuse(`${field} host ${host} is this machine`);
  if (net.isIP(host)) {
    // An IP literal: the caller wrote the address, so naming its class tells nothing new.
    const reason = forbiddenAddressReason(host);
    if (reason) throw refuse(`${field} host ${host} is ${aClass(reason)}`);
    return url;
  }
  for (const address of await resolveAll(host)) {
    const reason = forbiddenAddressReason(address);
    if (reason) {
      options.log?.warn({ host, address, reason }, `${subject.label}: URL refused, its host resolves to a forbidden address`);
      throw refuse(`${field} host ${host} ${resolvesForbidden(subject)}`);
    }
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

/**
 * A call refused by the guard at connect time. The message is what the tenant may be shown; the
 * resolved address and its class, when a name was resolved, are for the server's log alone.
 */
export class ForbiddenAddressError extends Error {
  readonly code = 'OUTBOUND_ADDRESS_FORBIDDEN';
  constructor(
    message: string,
    readonly resolved?: { host: string; address: string; reason: string },
  ) {
    super(message);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
export type GuardedLookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for sockets (http(s).request, undici's connect) that refuses forbidden addresses, so the
 * address checked is the one connected to. (Hosts written as IP literals never reach lookup: check
 * them with assertConnectTarget first.)
 */
export function guardedLookupFor(subject: OutboundSubject = OUTBOUND): GuardedLookup {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const a of addresses) {
        const reason = forbiddenAddressReason(a.address);
        if (reason) return callback(new ForbiddenAddressError(`${hostname} ${resolvesForbidden(subject)}`, { host: hostname, address: a.address, reason }), []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** The connect-time check of what lookup does not see: scheme, local names and IP literals. */
export function assertConnectTarget(url: URL): void {
  if (url.protocol !== 'https:') throw new ForbiddenAddressError('url must use https');
  const host = hostOf(url);
  if (LOCAL_NAME.test(host)) throw new ForbiddenAddressError(`${host} is this machine`);
  if (net.isIP(host)) {
    const reason = forbiddenAddressReason(host);
    if (reason) throw new ForbiddenAddressError(`${host} is ${aClass(reason)}`);
  }
}

export interface GuardedFetchOptions {
  allowedHosts: readonly string[];
  subject?: OutboundSubject;
  /** Told (at warn) the address a name resolved to when the guard refuses it. */
  log?: RefusalLog;
}

// One connection pool per subject (and one for allow-listed hosts), shared by every call: a socket
// in it was checked when it connected, and each request carries its own credentials.
// undici (8 MB resident) loads at the first outbound call, not at start (issue 42).
const agents = new Map<string, Agent>();
let loadingUndici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (loadingUndici ??= import('undici'));
async function agentFor(subject: OutboundSubject | null): Promise<Agent> {
  const { Agent } = await loadUndici();
  const key = subject ? `guarded:${subject.label}` : 'allow-listed';
  let agent = agents.get(key);
  if (!agent) agents.set(key, (agent = subject ? new Agent({ connect: { lookup: guardedLookupFor(subject) as never } }) : new Agent()));
  return agent;
}

/**
 * A `fetch` for client libraries (they take one as an option) whose every connection goes through
 * the guard: the URL is checked before each request (scheme, local names, IP literals) and the
 * resolved address in the socket's lookup. Redirects are not followed (a 3xx could point where the
 * guard refuses to go). Allow-listed hosts skip the guard.
 */
export function guardedFetch(options: GuardedFetchOptions): typeof globalThis.fetch {
  const subject = options.subject ?? OUTBOUND;
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const raw = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const url = new URL(raw);
    const allowed = isAllowListed(url, options.allowedHosts);
    if (!allowed) assertConnectTarget(url);
    const [{ fetch: undiciFetch }, dispatcher] = await Promise.all([loadUndici(), agentFor(allowed ? null : subject)]);
    try {
      return (await undiciFetch(raw, {
        ...(init as object),
        ...(input instanceof Request ? { method: input.method, headers: input.headers, body: input.body, duplex: 'half' } : {}),
        redirect: 'manual',
        dispatcher,
      } as never)) as unknown as Response;
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof ForbiddenAddressError) {
        if (cause.resolved) options.log?.warn({ ...cause.resolved }, `${subject.label}: call refused, its host resolves to a forbidden address`);
        throw cause;
      }
      throw err;
    }
  }) as typeof globalThis.fetch;
}
