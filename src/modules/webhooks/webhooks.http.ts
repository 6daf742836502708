import http from 'node:http';
import https from 'node:https';
import { assertDeliveryTarget, ForbiddenAddressError, guardedLookup, isAllowListed, type RefusalLog } from './ssrf.js';

export interface AttemptResult {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

export interface PostOptions {
  timeoutMs: number;
  allowedHosts: readonly string[];
  signal?: AbortSignal;
  /** Told (at warn) the address a name resolved to when the guard refuses it; the result never shows it. */
  log?: RefusalLog;
}

const MAX_ERROR = 500;

/**
 * One POST to a receiver. Success is a 2xx status within the timeout; the response body is never
 * read into memory (receivers answer what they like). Redirects are not followed: a 3xx could point
 * anywhere, including where the SSRF guard would refuse to go. No connection pooling: a socket is
 * never shared between tenants' receivers.
 */
export function postWebhook(rawUrl: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<AttemptResult> {
  const started = performance.now();
  const done = (responseStatus: number | null, error: string | null): AttemptResult => ({
    ok: responseStatus !== null && responseStatus >= 200 && responseStatus < 300 && error === null,
    responseStatus,
    durationMs: Math.round(performance.now() - started),
    error: error === null ? null : error.slice(0, MAX_ERROR),
  });

  let url: URL;
  try {
    url = new URL(rawUrl);
    if (!isAllowListed(url, options.allowedHosts)) assertDeliveryTarget(url);
  } catch (err) {
    return Promise.resolve(done(null, (err as Error).message));
  }
  const allowed = isAllowListed(url, options.allowedHosts);

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'POST',
      agent: false,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'workboard-webhooks/1' },
      ...(allowed ? {} : { lookup: guardedLookup as never }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const deadline = setTimeout(() => {
      finish(done(null, `no response within ${options.timeoutMs} ms`));
      request.destroy();
    }, options.timeoutMs);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      finish(done(status, status >= 200 && status < 300 ? null : `receiver answered HTTP ${status}`));
      response.resume();
      response.on('error', () => {});
      // The status is all we wait for; a receiver streaming a body forever must not hold the socket.
      setTimeout(() => request.destroy(), 1000).unref();
    });
    request.on('error', (err) => {
      if (err instanceof ForbiddenAddressError && err.resolved) {
        options.log?.warn({ ...err.resolved }, 'webhook delivery refused: its host resolves to a forbidden address');
      }
      finish(done(null, err.message || String(err)));
    });
    request.end(body);
  });
}
