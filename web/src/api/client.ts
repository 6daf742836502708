import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type Task = Schemas['Task'];
export type Stage = Schemas['Stage'];
export type Project = Schemas['ProjectFull'];
export type Space = Schemas['Space'];
export type Member = Schemas['Member'];
export type Label = Schemas['Label'];
export type Envelope = Schemas['EventEnvelope'];
export type Problem = Schemas['Problem'];

const SESSION_KEY = 'workboard.session';

/** The session lives in localStorage: every tab of the browser shares one sign-in. */
export const session = {
  get: (): string | null => localStorage.getItem(SESSION_KEY),
  set: (value: string) => localStorage.setItem(SESSION_KEY, value),
  clear: () => localStorage.removeItem(SESSION_KEY),
};

/** A refused request, with the problem document's code and text (what the user is shown). */
export class ApiError extends Error {
  constructor(
    /** 0 when no answer came (the network or the server is down). */
    readonly status: number,
    readonly code: string,
    message: string,
    /** The problem document's own detail, when it had one. */
    readonly detail: string | null = null,
  ) {
    super(message);
  }
}

/** A request that got no answer at all: fetch rejects with a TypeError ("Failed to fetch"). */
export const networkError = () => new ApiError(0, 'NETWORK', 'The server is unavailable');

let onUnauthorized: () => void = () => {};
/** Called when the server no longer accepts the session (expired, revoked, signed out elsewhere). */
export const setUnauthorizedHandler = (fn: () => void) => (onUnauthorized = fn);

export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? 'http://localhost' });
api.use({
  onRequest({ request }) {
    const value = session.get();
    if (value) request.headers.set('Service-Session', value);
    return request;
  },
});

function problemOf(error: unknown, response: Response): ApiError {
  const p = (error && typeof error === 'object' ? error : {}) as Partial<Problem>;
  return new ApiError(response.status, p.code ?? `HTTP_${response.status}`, p.detail || p.title || response.statusText || 'request failed', p.detail || null);
}

type Answer<D> = { data?: D; error?: unknown; response: Response };

/** The answer's data, or an ApiError carrying the problem document. */
export async function call<D>(request: Promise<Answer<D>>): Promise<D> {
  const { data, error, response } = await request.catch((err: unknown) => {
    throw err instanceof DOMException && err.name === 'AbortError' ? err : networkError();
  });
  if (!response.ok) {
    if (response.status === 401) onUnauthorized();
    throw problemOf(error, response);
  }
  return data as D;
}

/** A multipart upload (openapi-fetch sends JSON bodies; the upload routes read form data). */
export async function upload<D>(url: string, form: FormData, method: 'POST' | 'PATCH' = 'POST'): Promise<D> {
  const response = await fetch(url, { method, body: form, headers: { 'Service-Session': session.get() ?? '' } }).catch(() => {
    throw networkError();
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw problemOf(body, response);
  return body as D;
}
