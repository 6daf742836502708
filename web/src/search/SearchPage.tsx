import type { ReactNode } from 'react';
import { Link, Route, Routes, useSearchParams } from 'react-router';
import { useInfiniteQuery, useQuery, type InfiniteData, type UseInfiniteQueryResult } from '@tanstack/react-query';
import { projectsQuery } from '../api/queries';
import { STATUS } from '../board/Card';
import { LoadMore } from '../common/LoadMore';
import { SpaceSelect } from '../common/SpaceSelect';
import { itemsOf, totalOf, type Page } from '../common/paging';
import { filterOf, homeOf, paramsOf, reglamentSearchQuery, taskPath, taskSearchQuery, type SearchFilter } from './model';
import { ReglamentView } from './ReglamentView';
import '../common/page.css';
import './search.css';
import { t } from '../i18n';
import { errorText } from '../common/toast';

function Filters({ filter, onChange }: { filter: SearchFilter; onChange: (f: SearchFilter) => void }) {
  return (
    <div className="search-filters">
      <SpaceSelect value={filter.spaceId} onChange={(spaceId) => onChange({ ...filter, spaceId })} />
      <label>
        <input type="checkbox" checked={filter.archived} onChange={(e) => onChange({ ...filter, archived: e.target.checked })} /> {t('search.archived')}
      </label>
    </div>
  );
}

type Paged = UseInfiniteQueryResult<InfiniteData<Page<{ id: number }>>>;

/** One kind of result: its heading with the total, the items, and the next page's button. */
function ResultSection({ id, title, query, none, children }: { id: string; title: string; query: Paged; none: string; children: ReactNode }) {
  return (
    <section className="search-section" aria-labelledby={id}>
      <h2 id={id}>
        {title} {query.isSuccess && <span className="count">{totalOf(query.data)}</span>}
      </h2>
      {query.isError && <p className="form-error" role="alert">{errorText(query.error)}</p>}
      {query.isSuccess && totalOf(query.data) === 0 && <p className="muted">{none}</p>}
      <ul className="results" data-testid={id}>
        {children}
      </ul>
      <LoadMore query={query} label={t('search.more', { what: title.toLowerCase() })} />
    </section>
  );
}

function TaskResults({ filter }: { filter: SearchFilter }) {
  const tasks = useInfiniteQuery(taskSearchQuery(filter));
  const { data: projects = [] } = useQuery(projectsQuery);
  const projectName = new Map(projects.map((p) => [p.id, p.name]));
  return (
    <ResultSection id="task-results" title={t('search.tasks')} query={tasks} none={t('search.noTask')}>
      {itemsOf(tasks.data).map((task) => {
        const path = taskPath(task);
        const projectId = homeOf(task)?.projectId;
        return (
          <li key={task.id}>
            {path ? <Link to={path}>{task.name}</Link> : <span>{task.name}</span>}
            <span className="muted">{projectId !== undefined ? (projectName.get(projectId) ?? '') : ''}</span>
            {STATUS[task.status] && <span className="badge status">{t(STATUS[task.status]!)}</span>}
          </li>
        );
      })}
    </ResultSection>
  );
}

function ReglamentResults({ filter }: { filter: SearchFilter }) {
  const reglaments = useInfiniteQuery(reglamentSearchQuery(filter));
  return (
    <ResultSection id="reglament-results" title={t('search.reglaments')} query={reglaments} none={t('search.noReglament')}>
      {itemsOf(reglaments.data).map((r) => (
        <li key={r.id}>
          <Link to={`/search/reglaments/${r.id}`}>{r.name}</Link>
          {r.draft && <span className="badge status">{t('search.draft')}</span>}
        </li>
      ))}
    </ResultSection>
  );
}

function Results() {
  const [params, setParams] = useSearchParams();
  const filter = filterOf(params);
  return (
    <div className="page search-page">
      <h1>{filter.q ? t('search.titleFor', { q: filter.q }) : t('search.title')}</h1>
      <Filters filter={filter} onChange={(f) => setParams(paramsOf(f))} />
      {filter.q ? (
        <>
          <TaskResults filter={filter} />
          <ReglamentResults filter={filter} />
        </>
      ) : (
        <p className="muted">{t('search.hint')}</p>
      )}
    </div>
  );
}

/** Search across the spaces the user can read: tasks (boards or archive) and reglaments, paged. */
export function SearchPage() {
  return (
    <Routes>
      <Route index element={<Results />} />
      <Route path="reglaments/:reglamentId" element={<ReglamentView />} />
    </Routes>
  );
}
