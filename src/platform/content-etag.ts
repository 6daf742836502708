import { createHash } from 'node:crypto';

/**
 * The ETag of a versioned document (page, project documentation, reglament): `"<version>-<digest>"`.
 * If-Match compares the version part only (a save is stale when the content changed since it was
 * read); a cache's If-None-Match compares the whole tag, and the digest covers the whole answer, so
 * what changes the answer without a new content version (publishing a page, someone passing a
 * reglament, a file attached) is never answered 304 with the old form.
 */
export function contentEtag(version: number, body: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 16);
  return `"${version}-${digest}"`;
}

/**
 * Whether an If-Match header admits the current version: absent or empty, `*`, or any listed tag
 * naming it (weak or strong, quoted or bare, with or without the digest: hand-written clients
 * sending `If-Match: 3` work too).
 */
export function ifMatchAdmits(header: string | undefined, version: number): boolean {
  if (header === undefined || header.trim() === '') return true;
  return header.split(',').some((raw) => {
    const tag = raw.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
    return tag === '*' || tag.replace(/-[\w-]*$/, '') === String(version);
  });
}
