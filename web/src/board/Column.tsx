import { memo, useRef, useState } from 'react';
import { useDroppable } from '@dnd-kit/core';
import { SortableContext, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Label, Member, Stage, Task } from '../api/client';
import { InlineForm } from '../common/InlineForm';
import { SortableCard } from './SortableCard';
import type { StageActions } from './useBoardActions';

const COLOURS = ['', '#64748b', '#2563eb', '#7c3aed', '#db2777', '#dc2626', '#ea580c', '#ca8a04', '#16a34a', '#0d9488'];

interface Props {
  stage: Stage;
  position: number;
  columnCount: number;
  /** The column's tasks as shown (filtered), and how many it holds in all. */
  tasks: Task[];
  total: number;
  projectId: number;
  members: Map<number, Member>;
  labels: Map<number, Label>;
  today: string;
  canEdit: boolean;
  actions: StageActions;
}

function ColumnMenu({ stage, position, columnCount, actions }: Pick<Props, 'stage' | 'position' | 'columnCount' | 'actions'>) {
  return (
    <details className="column-menu">
      <summary aria-label={`Column ${stage.name} settings`}>⋯</summary>
      <div className="menu-panel">
        <InlineForm label="Rename" placeholder={stage.name} onSubmit={(name) => actions.rename(stage, name)} />
        <label>
          WIP limit
          <input
            type="number"
            min={0}
            defaultValue={stage.tasksLimit}
            aria-describedby={`wip-hint-${stage.id}`}
            onBlur={(e) => Number(e.target.value) !== stage.tasksLimit && void actions.limit(stage, Number(e.target.value)).catch(() => {})}
          />
        </label>
        <small id={`wip-hint-${stage.id}`}>0 = no limit</small>
        <fieldset className="colours">
          <legend>Colour</legend>
          {COLOURS.map((c) => (
            <button
              key={c || 'none'}
              type="button"
              className="swatch"
              style={{ background: c || 'transparent' }}
              aria-label={c ? `Colour ${c}` : 'No colour'}
              aria-pressed={stage.color === c}
              onClick={() => void actions.colour(stage, c).catch(() => {})}
            />
          ))}
        </fieldset>
        <div className="row">
          <button type="button" disabled={position === 0} onClick={() => void actions.move(stage, position - 1).catch(() => {})}>
            ← Move left
          </button>
          <button type="button" disabled={position === columnCount - 1} onClick={() => void actions.move(stage, position + 1).catch(() => {})}>
            Move right →
          </button>
        </div>
      </div>
    </details>
  );
}

/** A board column: its cards virtualized (only those in view are in the DOM), a drop target when empty. */
export const Column = memo(function Column(props: Props) {
  const { stage, tasks, total, canEdit, actions } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const { setNodeRef, isOver } = useDroppable({ id: `stage-${stage.id}`, disabled: !canEdit });
  const virtualizer = useVirtualizer({
    count: tasks.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 88,
    overscan: 6,
    getItemKey: (i) => tasks[i]!.id,
  });
  const [headingId] = useState(() => `column-${stage.id}`);
  const full = stage.tasksLimit > 0 && total >= stage.tasksLimit;
  return (
    <section className={`column ${isOver ? 'over' : ''} ${full ? 'full' : ''}`} aria-labelledby={headingId} data-stage-id={stage.id} style={stage.color ? { borderTopColor: stage.color } : undefined}>
      <header className="column-header">
        <h2 id={headingId}>{stage.name}</h2>
        <span className="count" title={stage.tasksLimit ? 'Tasks / WIP limit' : 'Tasks'} data-testid="column-count">
          {total}
          {stage.tasksLimit > 0 && ` / ${stage.tasksLimit}`}
        </span>
        {canEdit && <ColumnMenu {...props} />}
      </header>
      <div ref={scroller} className="column-body">
        <SortableContext id={`stage-${stage.id}`} items={tasks.map((t) => `task-${t.id}`)} strategy={verticalListSortingStrategy}>
          <div ref={setNodeRef} className="column-cards" style={{ height: Math.max(virtualizer.getTotalSize(), 48) }}>
            {virtualizer.getVirtualItems().map((item) => (
              <SortableCard
                key={item.key}
                task={tasks[item.index]!}
                index={item.index}
                start={item.start}
                stageId={stage.id}
                canEdit={canEdit}
                measure={virtualizer.measureElement}
                projectId={props.projectId}
                members={props.members}
                labels={props.labels}
                today={props.today}
              />
            ))}
          </div>
        </SortableContext>
      </div>
      {canEdit && <InlineForm className="add-card" label={`Add card to ${stage.name}`} placeholder="Card name" onSubmit={(name) => actions.addTask(stage, name)} />}
    </section>
  );
});
