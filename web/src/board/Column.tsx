import { memo, useRef, useState } from 'react';
import { useDroppable } from '@dnd-kit/core';
import { SortableContext, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { Label, Member, Stage, Task } from '../api/client';
import { InlineForm } from '../common/InlineForm';
import { ColumnMenu } from './ColumnMenu';
import { SortableCard } from './SortableCard';
import type { StageActions } from './useBoardActions';
import { t } from '../i18n';

interface Props {
  stage: Stage;
  position: number;
  /** The column's tasks as shown (filtered), and how many it holds in all. */
  tasks: Task[];
  total: number;
  projectId: number;
  members: Map<number, Member>;
  labels: Map<number, Label>;
  today: string;
  canEdit: boolean;
  /** Editors and admins change the columns themselves. */
  canManage: boolean;
  /** Every column of the board, where a deleted column's tasks may go. */
  columns: Stage[];
  actions: StageActions;
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
        <span className="count" title={stage.tasksLimit ? t('column.countLimit') : t('column.count')} data-testid="column-count">
          {total}
          {stage.tasksLimit > 0 && ` / ${stage.tasksLimit}`}
        </span>
        {props.canManage && <ColumnMenu stage={stage} position={props.position} columns={props.columns} total={total} actions={actions} />}
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
      {canEdit && <InlineForm className="add-card" label={t('column.addCard', { name: stage.name })} placeholder={t('column.cardName')} onSubmit={(name, key) => actions.addTask(stage, name, key)} />}
    </section>
  );
});
