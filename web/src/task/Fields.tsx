import type { Label, Member, Task } from '../api/client';
import { api, call } from '../api/client';
import { Avatar } from '../common/people';
import { Labels } from './Labels';
import type { Write } from './TaskDrawer';
import { X } from 'lucide-react';
import { t } from '../i18n';

const STATUSES = [
  [0, 'status.0'],
  [1, 'status.1'],
  [2, 'status.2'],
  [3, 'status.3'],
] as const;
const IMPORTANCE = [
  [-1, 'importance.-1'],
  [0, 'importance.0'],
  [1, 'importance.1'],
  [2, 'importance.2'],
  [3, 'importance.3'],
] as const;

interface Props {
  task: Task;
  canEdit: boolean;
  members: Member[];
  labels: Label[];
  write: Write;
}

function People({ title, ids, members, canEdit, onAdd, onRemove }: { title: string; ids: number[]; members: Member[]; canEdit: boolean; onAdd: (id: number) => void; onRemove: (id: number) => void }) {
  const byId = new Map(members.map((m) => [m.userId, m]));
  return (
    <div className="field people">
      <span className="field-label" id={`people-${title}`}>
        {title}
      </span>
      <ul className="chips" aria-labelledby={`people-${title}`}>
        {ids.map((id) => (
          <li key={id} className="chip">
            <Avatar member={byId.get(id) ?? { userId: id, name: t('task.userN', { id }) }} size={20} /> {byId.get(id)?.name ?? t('task.userN', { id })}
            {canEdit && (
              <button type="button" className="chip-remove" aria-label={t('task.removePerson', { name: byId.get(id)?.name ?? id, list: title.toLowerCase() })} onClick={() => onRemove(id)}>
                <X aria-hidden="true" size={14} />
              </button>
            )}
          </li>
        ))}
        {ids.length === 0 && <li className="muted">{t('task.none')}</li>}
      </ul>
      {canEdit && (
        <select aria-label={t('task.addTo', { list: title.toLowerCase() })} value="" onChange={(e) => e.target.value && onAdd(Number(e.target.value))}>
          <option value="">{t('task.add')}</option>
          {members
            .filter((m) => !ids.includes(m.userId) && m.active)
            .map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.name}
              </option>
            ))}
        </select>
      )}
    </div>
  );
}

/** Status with block reason, dates, importance, people and labels. */
export function Fields({ task, canEdit, members, labels, write }: Props) {
  const path = { params: { path: { taskId: task.id } } };
  const setStatus = (status: number, blockReason?: string | null) => write(() => call(api.PATCH('/tasks/{taskId}/status', { ...path, body: { status, ...(blockReason !== undefined ? { blockReason } : {}) } })));
  const setDate = (field: 'dateBeginWithoutTime' | 'dateEndWithoutTime', value: string) => write(() => call(api.PATCH('/tasks/{taskId}/dates', { ...path, body: { [field]: value || null } })));
  const userPath = (userId: number) => ({ params: { path: { taskId: task.id, userId } } });
  return (
    <section className="fields" aria-label={t('task.properties')}>
      <label className="field">
        <span className="field-label">{t('task.status')}</span>
        <select disabled={!canEdit} value={task.status} onChange={(e) => void setStatus(Number(e.target.value))}>
          {STATUSES.map(([v, key]) => (
            <option key={v} value={v}>
              {t(key)}
            </option>
          ))}
        </select>
      </label>
      {task.status === 3 && (
        <label className="field">
          <span className="field-label">{t('task.blockReason')}</span>
          <input disabled={!canEdit} defaultValue={task.blockReason ?? ''} key={task.blockReason} onBlur={(e) => e.target.value !== (task.blockReason ?? '') && void setStatus(3, e.target.value || null)} />
        </label>
      )}
      <label className="field">
        <span className="field-label">{t('task.start')}</span>
        <input type="date" disabled={!canEdit} value={task.dateBeginWithoutTime ?? ''} onChange={(e) => void setDate('dateBeginWithoutTime', e.target.value)} />
      </label>
      <label className="field">
        <span className="field-label">{t('task.due')}</span>
        <input type="date" disabled={!canEdit} value={task.dateEndWithoutTime ?? ''} onChange={(e) => void setDate('dateEndWithoutTime', e.target.value)} />
      </label>
      <label className="field">
        <span className="field-label">{t('task.importance')}</span>
        <select disabled={!canEdit} value={task.importance} onChange={(e) => void write(() => call(api.PATCH('/tasks/{taskId}/importance', { ...path, body: { importance: Number(e.target.value) } })))}>
          {IMPORTANCE.map(([v, key]) => (
            <option key={v} value={v}>
              {t(key)}
            </option>
          ))}
        </select>
      </label>
      <People
        title={t('task.assignees')}
        ids={task.responsibleUserId}
        members={members}
        canEdit={canEdit}
        onAdd={(userId) => void write(() => call(api.POST('/tasks/{taskId}/assignees', { ...path, body: { userId } })))}
        onRemove={(userId) => void write(() => call(api.DELETE('/tasks/{taskId}/assignees/{userId}', userPath(userId))))}
      />
      <People
        title={t('task.members')}
        ids={task.members}
        members={members}
        canEdit={canEdit}
        onAdd={(userId) => void write(() => call(api.POST('/tasks/{taskId}/members', { ...path, body: { userId } })))}
        onRemove={(userId) => void write(() => call(api.DELETE('/tasks/{taskId}/members/{userId}', userPath(userId))))}
      />
      <People
        title={t('task.inspectors')}
        ids={task.inspectors.map((i) => i.userId)}
        members={members}
        canEdit={canEdit}
        onAdd={(inspectorId) => void write(() => call(api.POST('/tasks/{taskId}/inspetor', { ...path, body: { inspectorId } })))}
        onRemove={(inspectorId) => void write(() => call(api.DELETE('/tasks/{taskId}/inspetor/{inspectorId}', { params: { path: { taskId: task.id, inspectorId } } })))}
      />
      <Labels task={task} canEdit={canEdit} labels={labels} write={write} />
    </section>
  );
}
