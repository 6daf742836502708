import { useMemo } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { renderMarkdown } from '../common/markdown';
import { ArrowLeft } from 'lucide-react';
import { t } from '../i18n';

/** A reglament opened from the search results, read-only (its content is HTML or Markdown, sanitized). */
export function ReglamentView() {
  const reglamentId = Number(useParams().reglamentId);
  const navigate = useNavigate();
  const { data, error } = useQuery({ queryKey: ['reglament', reglamentId], queryFn: () => call(api.GET('/reglaments/{reglamentId}', { params: { path: { reglamentId } } })) });
  const html = useMemo(() => (data ? renderMarkdown(data.content) : ''), [data]);
  return (
    <article className="page reglament-view">
      <button type="button" className="ghost" onClick={() => navigate(-1)}>
        <ArrowLeft aria-hidden="true" size={14} /> {t('action.back')}
      </button>
      {error && <p className="form-error" role="alert">{error.message}</p>}
      {data && (
        <>
          <h1>{data.name}</h1>
          {data.draft && <p className="badge status">{t('search.draft')}</p>}
          <div className="markdown" data-testid="reglament-content" dangerouslySetInnerHTML={{ __html: html }} />
        </>
      )}
    </article>
  );
}
