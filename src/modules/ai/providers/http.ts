import { guardedFetch, type RefusalLog } from '../../../platform/outbound.js';
import { AppError } from '../../../platform/errors.js';

export const LLM_SUBJECT = { label: 'LLM providers', code: 'OUTBOUND_URL_FORBIDDEN' } as const;

export interface ProviderHttpOptions {
  allowedHosts: readonly string[];
  /** Until the provider's answer headers arrive (a streamed answer may then take its time). */
  timeoutMs: number;
  /** The one retry waits for the provider's retry-after up to this long; a longer wait fails at once. */
  maxRetryAfterMs: number;
  log?: RefusalLog;
}

const RETRY_DEFAULT_MS = 500;

/** retry-after-ms (OpenAI's) or retry-after (seconds or an HTTP date), in milliseconds. */
export function retryAfterMs(headers: Headers): number | null {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms)) return Math.max(0, ms);
  const raw = headers.get('retry-after');
  if (raw === null) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

const retryable = (status: number) => status === 429 || status >= 500;

/**
 * The `fetch` every provider client uses (the SDKs take one; Ollama's calls use it directly):
 * through the outbound guard, with a timeout to the answer's headers and exactly one retry on
 * 429/5xx that honours the provider's retry-after. The SDKs' own retries are off (maxRetries 0) so
 * the three providers behave alike and a provider cannot make the service wait for an hour.
 */
export function providerFetch(options: ProviderHttpOptions): typeof globalThis.fetch {
  const base = guardedFetch({ allowedHosts: options.allowedHosts, subject: LLM_SUBJECT, ...(options.log ? { log: options.log } : {}) });
  const attempt = async (input: string | URL | Request, init: RequestInit | undefined) => {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      return await base(input, { ...init, signal });
    } catch (err) {
      if (timeout.aborted) throw new AppError('AI_PROVIDER_FAILED', `the LLM provider did not answer within ${options.timeoutMs} ms`);
      throw err;
    }
  };
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const first = await attempt(input, init);
    if (!retryable(first.status)) return first;
    const wait = retryAfterMs(first.headers) ?? RETRY_DEFAULT_MS;
    if (wait > options.maxRetryAfterMs) return first;
    await first.body?.cancel().catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, wait));
    return attempt(input, init);
  }) as typeof globalThis.fetch;
}

/**
 * The error a failed provider call answers with: 502 AI_PROVIDER_FAILED naming the provider's HTTP
 * status, never its message (providers echo parts of the key: "Incorrect API key provided: sk-…").
 */
export function providerFailed(err: unknown): AppError {
  if (err instanceof AppError) return err;
  // The SDKs wrap what fetch threw (a timeout, a refusal of the guard) as a connection error's cause.
  const inner = (err as { cause?: unknown }).cause;
  if (inner instanceof AppError || (inner as { code?: unknown })?.code === 'OUTBOUND_ADDRESS_FORBIDDEN') return providerFailed(inner);
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') return new AppError('AI_PROVIDER_FAILED', `the LLM provider answered HTTP ${status}`);
  const code = (err as { code?: unknown }).code;
  if (code === 'OUTBOUND_ADDRESS_FORBIDDEN') return new AppError('AI_PROVIDER_FAILED', `the LLM provider could not be reached: ${(err as Error).message}`);
  const cause = (err as { cause?: { code?: unknown } }).cause;
  const reason = typeof cause?.code === 'string' ? cause.code : 'connection failed';
  return new AppError('AI_PROVIDER_FAILED', `the LLM provider could not be reached (${reason})`);
}
