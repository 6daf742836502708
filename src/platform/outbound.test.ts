import dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assertOutboundUrl, ForbiddenAddressError, guardedFetch } from './outbound.js';

afterEach(() => vi.restoreAllMocks());

async function server(): Promise<{ url: string; hits: string[]; close(): void }> {
  const hits: string[] = [];
  const s = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, hits, close: () => s.close() };
}

describe('guardedFetch', () => {
  it('reaches an allow-listed host over http', async () => {
    const s = await server();
    try {
      const res = await guardedFetch({ allowedHosts: ['127.0.0.1'] })(`${s.url}/v1/models`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
      expect(s.hits).toEqual(['/v1/models']);
    } finally {
      s.close();
    }
  });

  it('refuses http, loopback literals and the metadata address without connecting', async () => {
    const f = guardedFetch({ allowedHosts: [] });
    await expect(f('http://api.example.com/')).rejects.toThrow(/https/);
    await expect(f('https://127.0.0.1/')).rejects.toThrow('127.0.0.1 is a loopback address');
    await expect(f('https://169.254.169.254/latest/meta-data')).rejects.toThrow('169.254.169.254 is a link-local address');
    await expect(f('https://localhost/')).rejects.toThrow(/this machine/);
  });

  it('checks the resolved address again at connect time (DNS rebinding) and logs it only on the server', async () => {
    const s = await server();
    try {
      vi.spyOn(dns, 'lookup').mockImplementation(((_h: string, _o: unknown, cb: (e: null, a: dns.LookupAddress[]) => void) =>
        cb(null, [{ address: '127.0.0.1', family: 4 }])) as never);
      const log = { warn: vi.fn() };
      const port = new URL(s.url).port;
      const err = await guardedFetch({ allowedHosts: [], log })(`https://llm.example.com:${port}/v1/models`).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ForbiddenAddressError);
      expect((err as Error).message).toBe('llm.example.com resolves to an address outbound calls may not target (loopback, private, link-local or reserved)');
      expect(log.warn.mock.calls[0]![0]).toEqual({ host: 'llm.example.com', address: '127.0.0.1', reason: 'loopback' });
      expect(s.hits).toEqual([]);
    } finally {
      s.close();
    }
  });

  it('does not follow redirects', async () => {
    const s = http.createServer((_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end());
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    try {
      const res = await guardedFetch({ allowedHosts: ['127.0.0.1'] })(`http://127.0.0.1:${(s.address() as AddressInfo).port}/`);
      expect(res.status).toBe(302);
    } finally {
      s.close();
    }
  });
});

describe('assertOutboundUrl', () => {
  it('names the field and answers OUTBOUND_URL_FORBIDDEN', async () => {
    await expect(assertOutboundUrl('https://10.0.0.1/v1', [], { field: 'baseUrl' })).rejects.toMatchObject({
      code: 'OUTBOUND_URL_FORBIDDEN',
      message: 'baseUrl host 10.0.0.1 is a private address',
    });
    await expect(assertOutboundUrl('http://llm.example.com', [], { field: 'baseUrl' })).rejects.toMatchObject({ code: 'OUTBOUND_URL_FORBIDDEN' });
    expect((await assertOutboundUrl('http://127.0.0.1:1234/v1', ['127.0.0.1'])).href).toBe('http://127.0.0.1:1234/v1');
  });
});
