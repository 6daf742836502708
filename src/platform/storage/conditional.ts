import type { ByteRange } from './backend.js';

/**
 * HTTP conditional and range requests for stored files (RFC 9110 §13–14). A blob never changes under
 * its key, so its validators come from the files row alone: a 304 costs no storage round trip and
 * answers the same on every instance and every backend.
 */
export interface Validators {
  etag: string;
  lastModified: Date;
}

/** True when the client's copy is current (If-None-Match wins over If-Modified-Since, as the RFC says). */
export function notModified(headers: Record<string, string | string[] | undefined>, v: Validators): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (typeof ifNoneMatch === 'string') {
    return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === v.etag);
  }
  const since = headers['if-modified-since'];
  if (typeof since !== 'string') return false;
  const time = Date.parse(since);
  // HTTP dates have whole seconds: a row's milliseconds must not make every copy look stale.
  return Number.isFinite(time) && wholeSeconds(v.lastModified) <= time;
}

const wholeSeconds = (d: Date) => Math.floor(d.getTime() / 1000) * 1000;

/**
 * The one range a `Range` header asks for: null for the whole file (no header, a stale If-Range, a
 * multi-range or unit we do not serve, all of which the RFC lets a server answer with 200), or
 * 'unsatisfiable' (416) when it starts beyond the end.
 */
export function requestedRange(headers: Record<string, string | string[] | undefined>, size: number, v: Validators): ByteRange | null | 'unsatisfiable' {
  const header = headers.range;
  if (typeof header !== 'string') return null;
  const ifRange = headers['if-range'];
  if (typeof ifRange === 'string') {
    const value = ifRange.trim();
    const current = value.startsWith('"') || value.startsWith('W/') ? value === v.etag : Date.parse(value) >= wholeSeconds(v.lastModified);
    if (!current) return null;
  }
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    // A suffix: the last n bytes.
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return null;
  return { start, end };
}
