import type { FormEvent } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import './search.css';
import { t } from '../i18n';

/** The header's search field: submitting opens the results page for the words. */
export function SearchBox() {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const current = pathname === '/search' ? (params.get('q') ?? '') : '';

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const q = String(new FormData(event.currentTarget).get('q') ?? '').trim();
    if (q) navigate(`/search?${new URLSearchParams({ q })}`);
  }

  return (
    <form role="search" className="search-box" onSubmit={submit}>
      <input key={current} name="q" type="search" defaultValue={current} aria-label={t('search.label')} placeholder={t('search.placeholder')} maxLength={500} />
    </form>
  );
}
