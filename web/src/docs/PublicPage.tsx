import { useParams } from 'react-router';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { renderMarkdown } from '../common/markdown';
import { t } from '../i18n';
import './docs.css';

/**
 * A published page for anyone with its link, signed in or not. The API sends sanitized HTML; it
 * goes through DOMPurify again here so the client never trusts HTML it did not clean itself.
 */
export function PublicPage() {
  const publicToken = useParams().publicToken ?? '';
  const { data: page, error } = useQuery({
    queryKey: ['public-page', publicToken],
    queryFn: () => call(api.GET('/public/pages/{publicToken}', { params: { path: { publicToken } } })),
  });
  return (
    <main className="public-page" id="main">
      {error && (
        <p className="page-error" role="alert" data-testid="public-missing">
          {t('docs.public.missing')}
        </p>
      )}
      {!page && !error && <p className="loading">{t('common.loading')}</p>}
      {page && (
        <article aria-labelledby="public-title">
          <h1 id="public-title">
            {page.icon ? `${page.icon} ` : ''}
            {page.name}
          </h1>
          <p className="muted">
            {t('docs.public.updated')}
            <time dateTime={page.updatedAt}>{new Date(page.updatedAt).toLocaleString()}</time>
          </p>
          <div className="markdown doc-content" data-testid="public-content" dangerouslySetInnerHTML={{ __html: renderMarkdown(page.content) }} />
          {page.children.length > 0 && (
            <nav aria-label={t('docs.public.subpages')}>
              <h2>{t('docs.public.subpages')}</h2>
              <ul>
                {page.children.map((c) => (
                  <li key={c.publicToken}>
                    <Link to={`/public/${encodeURIComponent(c.publicToken)}`}>{c.name}</Link>
                  </li>
                ))}
              </ul>
            </nav>
          )}
        </article>
      )}
    </main>
  );
}
