import { useEffect, useRef, type ReactNode } from 'react';
import { X } from 'lucide-react';

interface Props {
  /** The id of the element that names the dialog (its heading or title field). */
  labelledBy: string;
  testId: string;
  onClose: () => void;
  /** The sticky header: the title and the dialog's buttons (its close button included). */
  header: ReactNode;
  children: ReactNode;
}

/**
 * A modal panel at the right of the screen (the open task, the archive): focused when it opens,
 * closed by Escape, by a click on the backdrop or by its own close button.
 */
export function Drawer({ labelledBy, testId, onClose, header, children }: Props) {
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && !e.defaultPrevented && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  return (
    <div className="drawer-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="drawer" role="dialog" aria-modal="true" aria-labelledby={labelledBy} ref={panel} tabIndex={-1} data-testid={testId}>
        <header className="drawer-header">{header}</header>
        {children}
      </div>
    </div>
  );
}

export function CloseButton({ label, onClose }: { label: string; onClose: () => void }) {
  return (
    <button type="button" className="ghost close" onClick={onClose} aria-label={label}>
      <X aria-hidden="true" size={18} />
    </button>
  );
}
