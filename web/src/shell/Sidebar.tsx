import { useState, type ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, call, type Schemas, type Space } from '../api/client';
import { groupsQuery, keys, projectsQuery, spacesQuery } from '../api/queries';
import { InlineForm } from '../common/InlineForm';
import { noop, useAction } from '../common/action';
import { ReportsLink, SpaceLinks } from './SpaceLinks';
import { ChevronDown, ChevronRight, Star as StarIcon } from 'lucide-react';
import { t } from '../i18n';

type ProjectItem = Schemas['Project'];

function Star({ on, label, onToggle }: { on: boolean; label: string; onToggle: () => void }) {
  return (
    <button type="button" className={`star ${on ? 'on' : ''}`} aria-pressed={on} aria-label={t('sidebar.favourite', { name: label })} onClick={onToggle}>
      <StarIcon aria-hidden="true" size={14} fill={on ? 'currentColor' : 'none'} />
    </button>
  );
}

function SpaceEntry({ space, projects, groups }: { space: Space; projects: ProjectItem[]; groups: Schemas['SpaceGroup'][] }) {
  const [open, setOpen] = useState(true);
  const run = useAction();
  const navigate = useNavigate();
  const canEdit = space.role !== 'reader';
  const currentGroup = groups.find((g) => g.spaceIds.includes(space.id));
  async function moveToGroup(value: string) {
    const target = groups.find((g) => g.id === Number(value));
    const work = async () => {
      if (currentGroup) await call(api.PATCH('/space-groups/{groupId}/spaces', { params: { path: { groupId: currentGroup.id } }, body: { spaceIds: currentGroup.spaceIds.filter((id) => id !== space.id) } }));
      if (target) await call(api.PATCH('/space-groups/{groupId}/spaces', { params: { path: { groupId: target.id } }, body: { spaceIds: [...target.spaceIds, space.id] } }));
    };
    await run(work, keys.groups, keys.spaces).catch(noop);
  }
  return (
    <li className="space">
      <div className="space-row">
        <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? <ChevronDown aria-hidden="true" size={14} /> : <ChevronRight aria-hidden="true" size={14} />} {space.name}
        </button>
        <Star
          on={space.favorite}
          label={space.name}
          onToggle={() => void run(() => call(api.PATCH('/spaces/{spaceId}/favorite', { params: { path: { spaceId: space.id } }, body: { favorite: !space.favorite } })), keys.spaces).catch(noop)}
        />
      </div>
      {open && (
        <ul className="projects">
          <SpaceLinks space={space} />
          {projects.map((p) => (
            <li key={p.id} className="project-row">
              <NavLink to={`/projects/${p.id}`}>{p.name}</NavLink>
              <Star
                on={p.favorite}
                label={p.name}
                onToggle={() => void run(() => call(api.PATCH('/projects/{projectId}/favorite', { params: { path: { projectId: p.id } }, body: { favorite: !p.favorite } })), keys.projects).catch(noop)}
              />
            </li>
          ))}
          {canEdit && (
            <li>
              <InlineForm
                label={t('sidebar.newProject', { name: space.name })}
                placeholder={t('sidebar.projectName')}
                onSubmit={async (name) => {
                  const project = await run(() => call(api.POST('/projects', { body: { spaceId: space.id, name } })), keys.projects);
                  navigate(`/projects/${project.id}`);
                }}
              />
            </li>
          )}
          {groups.length > 0 && (
            <li>
              <label className="group-select">
                {t('sidebar.folder')}
                <select value={currentGroup?.id ?? ''} onChange={(e) => void moveToGroup(e.target.value)}>
                  <option value="">{t('sidebar.none')}</option>
                  {groups.map((g) => (
                    <option key={g.id} value={g.id}>
                      {g.name}
                    </option>
                  ))}
                </select>
              </label>
            </li>
          )}
        </ul>
      )}
    </li>
  );
}

export function Sidebar({ footer }: { footer?: ReactNode }) {
  const { data: spaces = [] } = useQuery(spacesQuery);
  const { data: groups = [] } = useQuery(groupsQuery);
  const { data: projects = [] } = useQuery(projectsQuery);
  const run = useAction();
  const projectsOf = (space: Space) => projects.filter((p) => p.spaceId === space.id || p.linkedSpaceIds.includes(space.id));
  const grouped = new Set(groups.flatMap((g) => g.spaceIds));
  const entry = (space: Space) => <SpaceEntry key={space.id} space={space} projects={projectsOf(space)} groups={groups} />;
  const favourites = [...spaces.filter((s) => s.favorite).map((s) => ({ key: `s${s.id}`, name: s.name, to: null })), ...projects.filter((p) => p.favorite).map((p) => ({ key: `p${p.id}`, name: p.name, to: `/projects/${p.id}` }))];
  return (
    <nav className="sidebar" id="sidebar" aria-label={t('sidebar.nav')}>
      <ReportsLink />
      {favourites.length > 0 && (
        <section>
          <h2>{t('sidebar.favourites')}</h2>
          <ul className="favourites">
            {favourites.map((f) => (
              <li key={f.key}>{f.to ? <NavLink to={f.to}><StarIcon aria-hidden="true" size={12} fill="currentColor" /> {f.name}</NavLink> : <span><StarIcon aria-hidden="true" size={12} fill="currentColor" /> {f.name}</span>}</li>
            ))}
          </ul>
        </section>
      )}
      <section>
        <h2>{t('sidebar.spaces')}</h2>
        {groups.map((g) => (
          <div key={g.id} className="group">
            <h3>{g.name}</h3>
            <ul>{g.spaceIds.map((id) => spaces.find((s) => s.id === id)).filter((s): s is Space => !!s).map(entry)}</ul>
          </div>
        ))}
        <ul>{spaces.filter((s) => !grouped.has(s.id)).map(entry)}</ul>
        <InlineForm label={t('sidebar.newSpace')} placeholder={t('sidebar.spaceName')} onSubmit={(name) => run(() => call(api.POST('/spaces', { body: { name } })), keys.spaces)} />
        <InlineForm label={t('sidebar.newFolder')} placeholder={t('sidebar.folderName')} onSubmit={(name) => run(() => call(api.POST('/space-groups', { body: { name } })), keys.groups)} />
      </section>
      {footer}
    </nav>
  );
}
