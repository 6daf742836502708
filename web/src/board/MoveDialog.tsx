import { createContext, useEffect, useRef, useState, type FormEvent } from 'react';
import type { Stage, Task } from '../api/client';
import { FormButtons } from '../common/FormButtons';
import { placeOf } from './model';
import { t } from '../i18n';

/** Opens "Move to…" for a card (the board provides it; cards without it show no such button). */
export const MoveToContext = createContext<((task: Task) => void) | null>(null);

interface Props {
  task: Task;
  projectId: number;
  stages: Stage[];
  /** Every column's cards, in order. */
  columns: Map<number, Task[]>;
  onMove: (stageId: number, index: number) => void;
  onClose: () => void;
}

/**
 * "Move to…": a column and a position, for when dragging is awkward (a phone, a long board). A modal
 * <dialog>, so it sits above the board's scrolling columns and fits the screen.
 */
export function MoveDialog({ task, projectId, stages, columns, onMove, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const from = placeOf(task, projectId);
  const [stageId, setStageId] = useState(from?.stageId ?? stages[0]?.id ?? 0);
  const others = (columns.get(stageId) ?? []).filter((t) => t.id !== task.id);
  const current = (columns.get(stageId) ?? []).findIndex((t) => t.id === task.id);
  const [index, setIndex] = useState(current >= 0 ? current : others.length);

  useEffect(() => {
    const node = dialog.current;
    if (node && !node.open) node.showModal();
  }, []);

  function pickColumn(id: number) {
    setStageId(id);
    const list = (columns.get(id) ?? []).filter((t) => t.id !== task.id);
    const at = (columns.get(id) ?? []).findIndex((t) => t.id === task.id);
    setIndex(at >= 0 ? at : list.length);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    onMove(stageId, index);
    onClose();
  }

  const title = `move-title-${task.id}`;
  return (
    <dialog ref={dialog} className="move-dialog" aria-labelledby={title} onClose={onClose} onCancel={onClose}>
      <form onSubmit={submit} className="move-form">
        <h2 id={title}>{t('move.title', { name: task.name })}</h2>
        <label>
          {t('move.column')}
          <select value={stageId} onChange={(e) => pickColumn(Number(e.target.value))}>
            {stages.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('move.position')}
          <select value={index} onChange={(e) => setIndex(Number(e.target.value))}>
            {Array.from({ length: others.length + 1 }, (_, i) => (
              <option key={i} value={i}>
                {i === 0 && others.length > 0 ? t('move.top', { n: 1 }) : i === others.length && i > 0 ? t('move.bottom', { n: i + 1 }) : String(i + 1)}
              </option>
            ))}
          </select>
        </label>
        <FormButtons busy={false} submit={t('move.submit')} onCancel={onClose} />
      </form>
    </dialog>
  );
}
