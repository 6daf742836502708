import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call, type Label, type Task } from '../api/client';
import { keys, organizationQuery, spacesQuery } from '../api/queries';
import { noop, useAction } from '../common/action';
import { ConfirmButton } from '../common/ConfirmButton';
import { canDeleteLabels, canManageLabels } from '../common/roles';
import type { Write } from './TaskDrawer';
import { FormButtons } from '../common/FormButtons';
import { X } from 'lucide-react';
import { t } from '../i18n';

const PALETTE = ['#7c3aed', '#0e7490', '#b91c1c', '#15803d', '#c2410c', '#1d4ed8', '#be185d', '#4d7c0f'];

/** One label of the organization, renamed or recoloured in place; deleted by organization admins. */
function LabelRow({ label, canDelete }: { label: Label; canDelete: boolean }) {
  const run = useAction();
  const path = { params: { path: { labelId: label.id } } };
  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const name = String(data.get('name')).trim();
    const color = String(data.get('color'));
    const body = { ...(name && name !== label.name ? { name } : {}), ...(color !== label.color.toLowerCase() ? { color } : {}) };
    if (Object.keys(body).length > 0) await run(() => call(api.PATCH('/labels/{labelId}', { ...path, body })), keys.labels).catch(noop);
  }
  return (
    <li>
      <form className="label-row" onSubmit={save}>
        <input type="color" name="color" aria-label={t('task.labelColourOf', { name: label.name })} defaultValue={label.color.toLowerCase()} key={label.color} />
        <input name="name" aria-label={t('task.labelNameOf', { name: label.name })} defaultValue={label.name} key={label.name} maxLength={500} required />
        <button type="submit">{t('action.save')}</button>
        {canDelete && <ConfirmButton label={t('action.delete')} name={t('task.deleteLabelName', { name: label.name })} question={t('task.deleteLabelQuestion')} onConfirm={() => run(() => call(api.DELETE('/labels/{labelId}', path)), keys.labels)} />}
      </form>
    </li>
  );
}

/** A new label of the organization, put on the task at once. */
function NewLabel({ taskId, write, count }: { taskId: number; write: Write; count: number }) {
  const [open, setOpen] = useState(false);
  const run = useAction();
  if (!open)
    return (
      <button type="button" className="add" onClick={() => setOpen(true)}>
        {t('task.newLabelButton')}
      </button>
    );
  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const name = String(data.get('name')).trim();
    if (!name) return;
    const label = await run(() => call(api.POST('/labels', { body: { name, color: String(data.get('color')) } })), keys.labels).catch(() => null);
    if (!label) return;
    setOpen(false);
    await write(() => call(api.POST('/tasks/{taskId}/labels', { params: { path: { taskId } }, body: { labelId: label.id } })));
  }
  return (
    <form className="inline-form" onSubmit={create} aria-label={t('task.newLabel')}>
      <input name="name" aria-label={t('task.labelName')} placeholder={t('task.labelName')} autoFocus maxLength={500} onKeyDown={(e) => {
          if (e.key !== 'Escape') return;
          e.preventDefault();
          setOpen(false);
        }} />
      <input type="color" name="color" aria-label={t('task.labelColour')} defaultValue={PALETTE[count % PALETTE.length]} />
      <FormButtons submit={t('task.create')} onCancel={() => setOpen(false)} className="inline-form-buttons" />
    </form>
  );
}

/** The task's labels: removed and added from the organization's list, which editors extend and change here. */
export function Labels({ task, canEdit, labels, write }: { task: Task; canEdit: boolean; labels: Label[]; write: Write }) {
  const { data: organization } = useQuery(organizationQuery);
  const { data: spaces = [] } = useQuery(spacesQuery);
  const manage = canEdit && canManageLabels(organization?.role, spaces.map((s) => s.role));
  const path = { params: { path: { taskId: task.id } } };
  return (
    <div className="field labels-field">
      <span className="field-label" id="labels-title">
        {t('task.labels')}
      </span>
      <ul className="chips" aria-labelledby="labels-title">
        {task.tags.map((id) => {
          const label = labels.find((l) => l.id === id);
          return (
            <li key={id} className="chip label" style={{ background: label?.color }}>
              {label?.name ?? id}
              {canEdit && (
                <button type="button" className="chip-remove" aria-label={t('task.removeLabel', { name: label?.name ?? id })} onClick={() => void write(() => call(api.DELETE('/tasks/{taskId}/labels/{labelId}', { params: { path: { taskId: task.id, labelId: id } } })))}>
                  <X aria-hidden="true" size={14} />
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {canEdit && (
        <div className="row">
          <select aria-label={t('task.addLabel')} value="" onChange={(e) => e.target.value && void write(() => call(api.POST('/tasks/{taskId}/labels', { ...path, body: { labelId: Number(e.target.value) } })))}>
            <option value="">{t('task.add')}</option>
            {labels
              .filter((l) => !task.tags.includes(l.id))
              .map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name}
                </option>
              ))}
          </select>
          {manage && <NewLabel taskId={task.id} write={write} count={labels.length} />}
        </div>
      )}
      {manage && labels.length > 0 && (
        <details className="manage-labels">
          <summary>{t('task.editLabels')}</summary>
          <ul className="label-rows">
            {labels.map((l) => (
              <LabelRow key={l.id} label={l} canDelete={canDeleteLabels(organization?.role)} />
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
