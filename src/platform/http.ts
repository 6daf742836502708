import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';

/**
 * Far past any list's length: bounded so that an absurd offset is a validation error naming
 * `/offset`, not the database's range error.
 */
const MAX_OFFSET = 1_000_000_000;

/** The `offset` query parameter of every list. */
export const Offset = (description = 'items to skip') => Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, description }));

/** Query parameters every list takes. Defaults follow routes.md: 50/500, task lists 1000/10000. */
export const Paging = (defaultLimit = 50, maxLimit = 500) =>
  Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit, description: `page size (default ${defaultLimit}, max ${maxLimit})` })),
    offset: Offset(),
  });
export type PagingQuery = Static<ReturnType<typeof Paging>>;

export function pageOf(query: { limit?: number; offset?: number }, defaultLimit = 50): { limit: number; offset: number } {
  return { limit: query.limit ?? defaultLimit, offset: query.offset ?? 0 };
}

/** Sets X-Total-Count and, when more exists, a Link rel="next" header, so a cut list is never silent. */
export function setPageHeaders(request: FastifyRequest, reply: FastifyReply, total: number, page: { limit: number; offset: number }): void {
  reply.header('x-total-count', String(total));
  const next = page.offset + page.limit;
  if (next < total) {
    const url = new URL(request.url, 'http://x');
    url.searchParams.set('offset', String(next));
    url.searchParams.set('limit', String(page.limit));
    reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
  }
}

/*
 * PostgreSQL's text form of a UTC timestamp (`2026-11-26 10:40:15.363456+00`), which the read
 * paths receive thousands of times per board. Rewritten as text, it is what Date would answer
 * (fractions truncated to milliseconds, as V8 does); any other form goes through Date. Years
 * before 1000 too: V8's parser reads some of them differently, and the answer must not change.
 */
const PG_UTC = /^([1-9]\d{3}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/** ISO 8601 with milliseconds, or null. */
export const iso = (d: Date | string | null | undefined): string | null => {
  if (d == null) return null;
  if (typeof d === 'string') {
    const m = PG_UTC.exec(d);
    if (m) return `${m[1]}T${m[2]}.${m[3] === undefined ? '000' : (m[3] + '00').slice(0, 3)}Z`;
  }
  return new Date(d).toISOString();
};
export const isoDate = (d: Date | string | null | undefined): string | null =>
  d == null ? null : typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d) ? d : new Date(d).toISOString().slice(0, 10);
