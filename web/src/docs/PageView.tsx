import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, call, type Member } from '../api/client';
import { InlineForm } from '../common/InlineForm';
import { noop, useAction } from '../common/action';
import { renderMarkdown } from '../common/markdown';
import { TitleInput } from '../common/TitleInput';
import { ContentEditor } from './ContentEditor';
import { PageVersions } from './PageVersions';
import { PublicLink } from './PublicLink';
import { docsKeys, pageQuery } from './queries';
import { t } from '../i18n';

interface Props {
  pageId: number;
  spaceId: number;
  canWrite: boolean;
  members: Map<number, Member>;
}

export function PageView({ pageId, spaceId, canWrite, members }: Props) {
  const { data: page, error } = useQuery(pageQuery(pageId));
  const [editing, setEditing] = useState(false);
  const run = useAction();
  const navigate = useNavigate();
  if (error) return <p className="page-error" role="alert">{error.message}</p>;
  if (!page) return <p className="loading">{t('docs.loadingPage')}</p>;
  const path = { pageId };
  const rename = (name: string) => void run(() => call(api.PATCH('/pages/{pageId}/name', { params: { path }, body: { name } })), docsKeys.page(pageId), docsKeys.groups(spaceId)).catch(noop);
  const archive = () =>
    void run(() => call(api.PATCH('/pages/{pageId}/archive', { params: { path } })), docsKeys.groups(spaceId))
      .then(() => navigate(`/spaces/${spaceId}/docs`))
      .catch(noop);
  async function addChild(name: string) {
    const child = await run(() => call(api.POST('/pages', { body: { spaceId, documentationGroupId: page!.documentationGroupId, parentPageId: pageId, name, content: '' } })), docsKeys.groups(spaceId));
    navigate(`/spaces/${spaceId}/docs/${child.id}`);
  }
  const author = page.updatedById === null ? null : (members.get(page.updatedById)?.name ?? t('docs.userN', { id: page.updatedById }));
  return (
    <article className="doc-page" aria-labelledby="page-title">
      <header className="item-header">
        {canWrite ? (
          <TitleInput id="page-title" label={t('docs.pageName')} name={page.name} onRename={rename} />
        ) : (
          <h1 id="page-title">
            {page.icon ? `${page.icon} ` : ''}
            {page.name}
          </h1>
        )}
        {canWrite && !editing && (
          <>
            <button type="button" onClick={() => setEditing(true)}>
              {t('docs.edit')}
            </button>
            <button type="button" className="ghost" onClick={archive}>
              {t('docs.archive')}
            </button>
          </>
        )}
      </header>
      <p className="muted">
        {t('docs.version', { version: page.version })}
        {author ? t('docs.lastEditedBy', { name: author }) : ''} · <time dateTime={page.updatedAt}>{new Date(page.updatedAt).toLocaleString()}</time>
        {page.archived ? t('docs.archived') : ''}
      </p>
      {editing ? (
        <ContentEditor page={page} onDone={() => setEditing(false)} />
      ) : page.content.trim() ? (
        <div className="markdown doc-content" data-testid="page-content" dangerouslySetInnerHTML={{ __html: renderMarkdown(page.content) }} />
      ) : (
        <p className="muted">
          {t('docs.empty')}
          {canWrite ? t('docs.emptyEditHint') : ''}
        </p>
      )}
      {page.files.length > 0 && (
        <ul className="doc-files" aria-label={t('docs.files')}>
          {page.files.map((f) => (
            <li key={f.id}>{f.name}</li>
          ))}
        </ul>
      )}
      {canWrite && <InlineForm label={t('docs.addSubpage')} placeholder={t('docs.pageName')} onSubmit={addChild} />}
      <PublicLink page={page} canWrite={canWrite} />
      <PageVersions pageId={pageId} current={page.version} members={members} />
    </article>
  );
}
