import { useMemo } from 'react';
import { useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { spaceQuery } from '../api/queries';
import { useMembers } from '../common/useMembers';
import { useLiveReload } from '../live/useLiveReload';
import { DocTree } from './DocTree';
import { PageView } from './PageView';
import { canWriteDocs } from '../common/roles';
import { docGroupsQuery, docsKeys } from './queries';
import { countPages, pathTo } from './tree';
import { t } from '../i18n';
import '../common/screens.css';
import './docs.css';

/** A space's documentation: the page tree beside the open page. */
export function DocsPage() {
  const params = useParams();
  const spaceId = Number(params.spaceId);
  const pageId = params.pageId ? Number(params.pageId) : null;
  const space = useQuery(spaceQuery(spaceId));
  const groups = useQuery(docGroupsQuery(spaceId));
  useLiveReload(['page.'], docsKeys.all);
  const members = useMembers();
  const canWrite = canWriteDocs(space.data?.role);
  const openPath = useMemo(() => new Set(pageId === null ? [] : (groups.data ?? []).flatMap((g) => pathTo(g.pages, pageId).map((n) => n.id))), [groups.data, pageId]);

  const error = space.error ?? groups.error;
  if (error) return <p className="page-error" role="alert">{error.message}</p>;
  if (!space.data || !groups.data) return <p className="loading">{t('docs.loading')}</p>;
  const total = groups.data.reduce((n, g) => n + countPages(g.pages), 0);
  return (
    <div className="split">
      <aside className="split-aside">
        <h1>{t('docs.heading', { space: space.data.name })}</h1>
        <DocTree spaceId={spaceId} groups={groups.data} canWrite={canWrite} openPath={openPath} />
      </aside>
      <div className="split-main">
        {pageId !== null ? (
          <PageView key={pageId} pageId={pageId} spaceId={spaceId} canWrite={canWrite} members={members} />
        ) : (
          <p className="muted doc-empty">{total === 0 ? t('docs.noPages') : t('docs.pick')}</p>
        )}
      </div>
    </div>
  );
}
