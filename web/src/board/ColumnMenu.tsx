import { useState } from 'react';
import type { Stage } from '../api/client';
import { noop } from '../common/action';
import { ConfirmButton } from '../common/ConfirmButton';
import { InlineForm } from '../common/InlineForm';
import type { StageActions } from './useBoardActions';
import { ArrowLeft, ArrowRight, Ellipsis } from 'lucide-react';
import { t } from '../i18n';

const COLOURS = ['', '#64748b', '#2563eb', '#7c3aed', '#db2777', '#dc2626', '#ea580c', '#ca8a04', '#16a34a', '#0d9488'];

interface Props {
  stage: Stage;
  position: number;
  columns: Stage[];
  /** The column's tasks on the board (archived ones are not counted here, the API counts them). */
  total: number;
  actions: StageActions;
}

/** Deleting asks first; a column with tasks names where they go, or the API refuses (STAGE_NOT_EMPTY). */
function DeleteColumn({ stage, columns, total, actions }: Omit<Props, 'position'>) {
  const [target, setTarget] = useState('');
  const others = columns.filter((s) => s.id !== stage.id);
  return (
    <div className="delete-column">
      {others.length > 0 && (
        <label>
          {t('column.moveTasksTo')}
          <select value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">{total > 0 ? t('column.chooseColumn') : t('column.nowhere')}</option>
            {others.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <ConfirmButton label={t('column.delete')} name={t('column.deleteName', { name: stage.name })} question={t('column.deleteQuestion', { name: stage.name })} onConfirm={() => actions.remove(stage, target ? Number(target) : null)} />
    </div>
  );
}

/** A column's settings for editors: name, WIP limit, colour, place, and deleting it. */
export function ColumnMenu({ stage, position, columns, total, actions }: Props) {
  return (
    <details className="column-menu">
      <summary aria-label={t('column.settings', { name: stage.name })}>
        <Ellipsis aria-hidden="true" size={16} />
      </summary>
      <div className="menu-panel">
        <InlineForm label={t('column.rename')} placeholder={stage.name} onSubmit={(name) => actions.rename(stage, name)} />
        <label>
          {t('column.wipLimit')}
          <input
            type="number"
            min={0}
            defaultValue={stage.tasksLimit}
            aria-describedby={`wip-hint-${stage.id}`}
            onBlur={(e) => Number(e.target.value) !== stage.tasksLimit && void actions.limit(stage, Number(e.target.value)).catch(noop)}
          />
        </label>
        <small id={`wip-hint-${stage.id}`}>{t('column.noLimit')}</small>
        <fieldset className="colours">
          <legend>{t('column.colour')}</legend>
          {COLOURS.map((c) => (
            <button
              key={c || 'none'}
              type="button"
              className="swatch"
              style={{ background: c || 'transparent' }}
              aria-label={c ? t('column.colourValue', { value: c }) : t('column.noColour')}
              aria-pressed={stage.color === c}
              onClick={() => void actions.colour(stage, c).catch(noop)}
            />
          ))}
        </fieldset>
        <div className="row">
          <button type="button" disabled={position === 0} onClick={() => void actions.move(stage, position - 1).catch(noop)}>
            <ArrowLeft aria-hidden="true" size={14} /> {t('column.moveLeft')}
          </button>
          <button type="button" disabled={position === columns.length - 1} onClick={() => void actions.move(stage, position + 1).catch(noop)}>
            {t('column.moveRight')} <ArrowRight aria-hidden="true" size={14} />
          </button>
        </div>
        <DeleteColumn stage={stage} columns={columns} total={total} actions={actions} />
      </div>
    </details>
  );
}
