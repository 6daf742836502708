import type { Label, Member, Task } from '../api/client';
import { api, call } from '../api/client';
import { Avatar } from '../common/people';
import { Labels } from './Labels';
import type { Write } from './TaskDrawer';
import { X } from 'lucide-react';

const STATUSES = [
  [0, 'In work'],
  [1, 'Done'],
  [2, 'Rejected'],
  [3, 'Needs attention'],
] as const;
const IMPORTANCE = [
  [-1, 'Not set'],
  [0, 'Low'],
  [1, 'Medium'],
  [2, 'High'],
  [3, 'Critical'],
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
            <Avatar member={byId.get(id) ?? { userId: id, name: `User ${id}` }} size={20} /> {byId.get(id)?.name ?? `User ${id}`}
            {canEdit && (
              <button type="button" className="chip-remove" aria-label={`Remove ${byId.get(id)?.name ?? id} from ${title.toLowerCase()}`} onClick={() => onRemove(id)}>
                <X aria-hidden="true" size={14} />
              </button>
            )}
          </li>
        ))}
        {ids.length === 0 && <li className="muted">None</li>}
      </ul>
      {canEdit && (
        <select aria-label={`Add to ${title.toLowerCase()}`} value="" onChange={(e) => e.target.value && onAdd(Number(e.target.value))}>
          <option value="">Add…</option>
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
    <section className="fields" aria-label="Properties">
      <label className="field">
        <span className="field-label">Status</span>
        <select disabled={!canEdit} value={task.status} onChange={(e) => void setStatus(Number(e.target.value))}>
          {STATUSES.map(([v, text]) => (
            <option key={v} value={v}>
              {text}
            </option>
          ))}
        </select>
      </label>
      {task.status === 3 && (
        <label className="field">
          <span className="field-label">Block reason</span>
          <input disabled={!canEdit} defaultValue={task.blockReason ?? ''} key={task.blockReason} onBlur={(e) => e.target.value !== (task.blockReason ?? '') && void setStatus(3, e.target.value || null)} />
        </label>
      )}
      <label className="field">
        <span className="field-label">Start</span>
        <input type="date" disabled={!canEdit} value={task.dateBeginWithoutTime ?? ''} onChange={(e) => void setDate('dateBeginWithoutTime', e.target.value)} />
      </label>
      <label className="field">
        <span className="field-label">Due</span>
        <input type="date" disabled={!canEdit} value={task.dateEndWithoutTime ?? ''} onChange={(e) => void setDate('dateEndWithoutTime', e.target.value)} />
      </label>
      <label className="field">
        <span className="field-label">Importance</span>
        <select disabled={!canEdit} value={task.importance} onChange={(e) => void write(() => call(api.PATCH('/tasks/{taskId}/importance', { ...path, body: { importance: Number(e.target.value) } })))}>
          {IMPORTANCE.map(([v, text]) => (
            <option key={v} value={v}>
              {text}
            </option>
          ))}
        </select>
      </label>
      <People
        title="Assignees"
        ids={task.responsibleUserId}
        members={members}
        canEdit={canEdit}
        onAdd={(userId) => void write(() => call(api.POST('/tasks/{taskId}/assignees', { ...path, body: { userId } })))}
        onRemove={(userId) => void write(() => call(api.DELETE('/tasks/{taskId}/assignees/{userId}', userPath(userId))))}
      />
      <People
        title="Members"
        ids={task.members}
        members={members}
        canEdit={canEdit}
        onAdd={(userId) => void write(() => call(api.POST('/tasks/{taskId}/members', { ...path, body: { userId } })))}
        onRemove={(userId) => void write(() => call(api.DELETE('/tasks/{taskId}/members/{userId}', userPath(userId))))}
      />
      <People
        title="Inspectors"
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
