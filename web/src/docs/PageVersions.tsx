import { useQuery } from '@tanstack/react-query';
import type { Member } from '../api/client';
import { versionsQuery } from './queries';
import { formatBytes } from './tree';
import { t } from '../i18n';

/**
 * The page's change history. The API lists versions (who, when, size) but serves neither their
 * content nor a restore, so this is a list: consecutive writes by one author within five minutes
 * are one entry there.
 */
export function PageVersions({ pageId, current, members }: { pageId: number; current: number; members: Map<number, Member> }) {
  const { data: versions, error } = useQuery(versionsQuery(pageId));
  return (
    <section className="section doc-versions" aria-labelledby="versions-title">
      <h2 id="versions-title">{t('docs.versions')}</h2>
      {error && <p role="alert">{error.message}</p>}
      <ol data-testid="page-versions">
        {(versions ?? []).map((v) => (
          <li key={v.id}>
            <strong>{t('docs.version', { version: v.version })}</strong>
            {v.version === current && <span className="badge">{t('docs.current')}</span>} · {v.userId === null ? t('docs.unknownAuthor') : (members.get(v.userId)?.name ?? t('docs.userN', { id: v.userId }))} ·{' '}
            <time dateTime={v.createdAt}>{new Date(v.createdAt).toLocaleString()}</time> · {formatBytes(v.size)}
          </li>
        ))}
      </ol>
    </section>
  );
}
