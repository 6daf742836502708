import { ApiError } from '../api/client';
import { t, type MessageKey } from '../i18n';
import { en } from '../i18n/en';

const has = (key: string): key is MessageKey => key in en;

/** Codes whose problem detail says what to change (which field, which column's limit): shown after the words. */
const DETAILED = new Set(['VALIDATION_FAILED', 'STAGE_TASKS_LIMIT', 'STAGE_NOT_EMPTY', 'BAD_REQUEST', 'CONFLICT', 'DATE_RANGE']);

/**
 * A failed request in words, in the person's language: the problem's `code` when the catalogue
 * knows it, else its HTTP status (or "the server is unavailable" when no answer came), followed by
 * the problem's `detail` where that detail tells what to change.
 */
export function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  if (err.status === 0) return t(globalThis.navigator?.onLine === false ? 'error.offline' : 'error.network');
  const byCode = `error.code.${err.code}`;
  const byStatus = `error.status.${err.status}`;
  const message = has(byCode) ? t(byCode) : has(byStatus) ? t(byStatus) : t(err.status >= 500 ? 'error.status.5xx' : 'error.status.4xx');
  const detailed = DETAILED.has(err.code) || (!has(byCode) && err.status < 500 && err.status !== 401 && err.status !== 403 && err.status !== 404);
  return detailed && err.detail ? t('error.withDetail', { message, detail: err.detail }) : message;
}

/** Whether trying the same request again may work (no answer, the server failed or was busy). */
export const retryable = (err: unknown) => err instanceof ApiError && (err.status === 0 || err.status >= 500 || err.status === 429);
