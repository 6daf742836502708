import { memo } from 'react';
import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { Card, type CardProps } from './Card';

interface Props extends CardProps {
  stageId: number;
  start: number;
  index: number;
  canEdit: boolean;
  measure: (node: Element | null) => void;
}

/**
 * A card in a virtualized column: placed at its measured offset, shifted by dnd-kit while a drag
 * passes over. Mouse drags start anywhere on the card (after 5 px, so a click still opens it), touch
 * drags after a long press (250 ms);
 * the keyboard drags by the handle (Space to lift, arrows to move, Space to drop, Escape to cancel).
 */
export const SortableCard = memo(function SortableCard({ stageId, start, index, canEdit, measure, ...card }: Props) {
  const { setNodeRef, setActivatorNodeRef, listeners, attributes, transform, transition, isDragging } = useSortable({
    id: `task-${card.task.id}`,
    data: { stageId },
    disabled: !canEdit,
  });
  const { onKeyDown, onMouseDown, onTouchStart } = (listeners ?? {}) as Record<string, React.EventHandler<React.SyntheticEvent>>;
  return (
    <div
      ref={(node) => {
        setNodeRef(node);
        measure(node);
      }}
      data-index={index}
      data-task-id={card.task.id}
      className="card-slot"
      // `top`, not a transform: dnd-kit measures droppables without their transforms.
      style={{ top: start, transform: CSS.Translate.toString(transform), transition, opacity: isDragging ? 0.35 : 1 }}
      onMouseDown={canEdit ? onMouseDown : undefined}
      onTouchStart={canEdit ? onTouchStart : undefined}
    >
      <Card {...card} handle={canEdit ? { ...attributes, role: undefined, ref: setActivatorNodeRef, onKeyDown } : undefined} />
    </div>
  );
});
