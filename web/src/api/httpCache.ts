/**
 * For reads whose ETag is a content version (pages, reglaments): publishing, renaming, passing or
 * favouring leave that version alone, so the browser's revalidation would get 304 and keep the old
 * form. `no-store` leaves the HTTP cache out of those reads.
 */
export const NO_HTTP_CACHE = { cache: 'no-store' } as const;
