import type { ReactNode } from 'react';

/** A form's submit button (Save unless named) and its Cancel, in one row; `children` follow them. */
export function FormButtons({ busy = false, onCancel, submit = 'Save', className = 'row', children }: { busy?: boolean; onCancel: () => void; submit?: string; className?: string; children?: ReactNode }) {
  return (
    <div className={className}>
      <button className="primary" disabled={busy}>
        {submit}
      </button>
      <button type="button" className="ghost" onClick={onCancel}>
        Cancel
      </button>
      {children}
    </div>
  );
}
