import { afterEach, describe, expect, it, vi } from 'vitest';
import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { forbiddenAddressReason, guardedLookup } from './ssrf.js';
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
  ])('refuses %s (%s)', (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each(['93.184.215.14', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
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
    expect(error?.message).toMatch(/link-local address \(169\.254\.169\.254\)/);
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
      const result = await postWebhook(`https://rebound.example.com:${port}/`, {}, '{}', { timeoutMs: 2000, allowedHosts: [] });
      expect(result).toMatchObject({ ok: false, responseStatus: null });
      expect(result.error).toMatch(/loopback address \(127\.0\.0\.1\)/);
      expect(hits).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('refuses http and IP literals that are not allow-listed, and sends to allow-listed ones', async () => {
    expect((await postWebhook('https://10.0.0.1/', {}, '{}', { timeoutMs: 500, allowedHosts: [] })).error).toMatch(/private/);
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
