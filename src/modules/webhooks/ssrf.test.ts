import { afterEach, describe, expect, it, vi } from 'vitest';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { assertWebhookUrl, ForbiddenAddressError, forbiddenAddressReason, guardedLookup } from './ssrf.js';
import { postWebhook } from './webhooks.http.js';

afterEach(() => vi.restoreAllMocks());

describe('forbiddenAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1%eth0', 'link-local'],
    ['fd12:3456::1', 'private'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::a00:1', 'private'],
    // IPv4 ranges that are never a receiver: special purpose, documentation, benchmarking, reserved.
    ['192.0.0.8', 'protocol assignments'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.200', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.254', 'benchmarking'],
    ['192.88.99.1', '6to4 relay'],
    ['240.0.0.1', 'reserved'],
    ['254.1.2.3', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // 6to4 (2002::/16) embeds an IPv4 address: refused for that address's class, and as 6to4 otherwise.
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::', 'link-local'],
    ['2002:c0a8:101:1::5', 'private'],
    ['2002:808:808::1', '6to4'],
    // Teredo (2001::/32) is refused whatever it embeds.
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001::1', 'Teredo'],
    // NAT64 local-use (64:ff9b:1::/48), whatever it embeds.
    ['64:ff9b:1::808:808', 'NAT64 local-use'],
    ['64:ff9b:1:ffff::1', 'NAT64 local-use'],
    // IPv4-translated (::ffff:0:0:0/96): unwrapped, and refused even for a public address.
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['::ffff:0:8.8.8.8', 'IPv4-translated'],
    // Discard-only (100::/64).
    ['100::', 'discard-only'],
    ['100::ffff:ffff:ffff:ffff', 'discard-only'],
    // IPv6 documentation and benchmarking.
    ['2001:db8::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    // Mapped and NAT64 well-known forms of the new IPv4 ranges.
    ['::ffff:198.18.0.1', 'benchmarking'],
    ['64:ff9b::c000:201', 'documentation'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '172.32.0.1', '100.128.0.1', '198.20.0.1', '192.0.3.1', '203.0.114.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2001:4860::8888', '100:0:0:1::1'])('allows the public address %s', (address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });
});

// DNS rebinding: a name that was public when saved may resolve to the metadata endpoint later.
const rebindTo = (address: string) =>
  vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: (e: null, a: dns.LookupAddress[]) => void) =>
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 }])) as never);

describe('delivery-time guard', () => {
  it('refuses in lookup a name resolving to a forbidden address', async () => {
    rebindTo('169.254.169.254');
    const error = await new Promise<Error | null>((resolve) => guardedLookup('hooks.example.com', {}, (err) => resolve(err)));
    expect(error).toBeInstanceOf(ForbiddenAddressError);
    expect(error?.message).toBe('hooks.example.com resolves to an address webhooks may not target (loopback, private, link-local or reserved)');
    expect(error?.message).not.toContain('169.254');
    expect((error as ForbiddenAddressError).resolved).toEqual({ host: 'hooks.example.com', address: '169.254.169.254', reason: 'link-local' });
  });

  it('never connects when the name resolves to loopback at send time', async () => {
    const hits: string[] = [];
    const server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      rebindTo('127.0.0.1');
      const port = (server.address() as AddressInfo).port;
      const log = { warn: vi.fn() };
      const result = await postWebhook(`https://rebound.example.com:${port}/`, { 'webhook-signature': 'v1,sig' }, '{}', { timeoutMs: 2000, allowedHosts: [], log });
      expect(result).toMatchObject({ ok: false, responseStatus: null });
      // The delivery log (the tenant's view) says why in general terms; the address goes to the server's log.
      expect(result.error).toBe('rebound.example.com resolves to an address webhooks may not target (loopback, private, link-local or reserved)');
      expect(result.error).not.toContain('127.0.0.1');
      expect(log.warn).toHaveBeenCalledTimes(1);
      expect(log.warn.mock.calls[0]![0]).toEqual({ host: 'rebound.example.com', address: '127.0.0.1', reason: 'loopback' });
      expect(hits).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('refuses http and IP literals that are not allow-listed, and sends to allow-listed ones', async () => {
    // An IP literal is what the caller wrote: its class may be named.
    expect((await postWebhook('https://10.0.0.1/', {}, '{}', { timeoutMs: 500, allowedHosts: [] })).error).toBe('10.0.0.1 is a private address');
    expect((await postWebhook('https://[2002:a00:1::1]/', {}, '{}', { timeoutMs: 500, allowedHosts: [] })).error).toBe('2002:a00:1::1 is a private address');
    expect((await postWebhook('https://[2001:0:4136:e378::1]/', {}, '{}', { timeoutMs: 500, allowedHosts: [] })).error).toBe('2001:0:4136:e378::1 is a Teredo address');
    expect((await postWebhook('http://hooks.example.com/', {}, '{}', { timeoutMs: 500, allowedHosts: [] })).error).toMatch(/https/);
    const server = http.createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const result = await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', { timeoutMs: 2000, allowedHosts: ['127.0.0.1'] });
      expect(result).toMatchObject({ ok: true, responseStatus: 204, error: null });
    } finally {
      server.close();
    }
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const server = http.createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const result = await postWebhook(`http://127.0.0.1:${port}/`, {}, '{}', { timeoutMs: 200, allowedHosts: ['127.0.0.1'] });
      expect(result).toMatchObject({ ok: false, responseStatus: null, error: 'no response within 200 ms' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

// What a name resolves to at save time, as dns.promises.lookup answers it.
const resolveTo = (...addresses: string[]) =>
  vi.spyOn(dns.promises, 'lookup').mockResolvedValue(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })) as never);

describe('assertWebhookUrl', () => {
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => expect.fail('expected a refusal'),
      (err: { code: string; message: string }) => err,
    );

  it.each([
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'link-local'],
    ['127.0.0.1', 'loopback'],
    ['198.18.0.7', 'benchmarking'],
    ['fd00::7', 'private'],
    ['2002:a01:203::1', 'private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ])('refuses a name resolving to %s without saying which address, and logs it on the server', async (address, reason) => {
    resolveTo('93.184.215.14', address);
    const log = { warn: vi.fn() };
    const err = await refusal(assertWebhookUrl('https://internal.example.com/hook', [], log));
    expect(err.code).toBe('WEBHOOK_URL_FORBIDDEN');
    expect(err.message).toBe('url host internal.example.com resolves to an address webhooks may not target (loopback, private, link-local or reserved)');
    expect(err.message).not.toContain(address);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0]![0]).toEqual({ host: 'internal.example.com', address, reason });
  });

  it.each([
    ['https://10.0.0.1/', 'url host 10.0.0.1 is a private address'],
    ['https://0.0.0.0/', 'url host 0.0.0.0 is an unspecified address'],
    ['https://203.0.113.9/', 'url host 203.0.113.9 is a documentation address'],
    ['https://255.255.255.255/', 'url host 255.255.255.255 is a broadcast address'],
    ['https://[100::1]/', 'url host 100::1 is a discard-only address'],
    ['https://[64:ff9b:1::a00:1]/', 'url host 64:ff9b:1::a00:1 is a NAT64 local-use address'],
    ['https://[::ffff:0:a00:1]/', 'url host ::ffff:0:a00:1 is a private address'],
  ])('names the class of an IP literal the caller wrote: %s', async (url, message) => {
    const lookup = vi.spyOn(dns.promises, 'lookup');
    const log = { warn: vi.fn() };
    expect(await refusal(assertWebhookUrl(url, [], log))).toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN', message });
    expect(lookup).not.toHaveBeenCalled();
    expect(log.warn).not.toHaveBeenCalled();
  });

  it('accepts a name resolving only to public addresses, and one that does not resolve now', async () => {
    resolveTo('93.184.215.14', '2606:4700::1111');
    expect((await assertWebhookUrl('https://hooks.example.com/in', [])).href).toBe('https://hooks.example.com/in');
    vi.spyOn(dns.promises, 'lookup').mockRejectedValue(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }));
    expect((await assertWebhookUrl('https://not-yet.example.com/in', [])).href).toBe('https://not-yet.example.com/in');
  });
});
