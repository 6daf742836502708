import type { ReactNode } from 'react';
import { t } from '../i18n';

/** A form's submit button (Save unless named) and its Cancel, in one row; `children` follow them. */
export function FormButtons({ busy = false, onCancel, submit = t('action.save'), className = 'row', children }: { busy?: boolean; onCancel: () => void; submit?: string; className?: string; children?: ReactNode }) {
  return (
    <div className={className}>
      <button className="primary" disabled={busy}>
        {submit}
      </button>
      <button type="button" className="ghost" onClick={onCancel}>
        {t('action.cancel')}
      </button>
      {children}
    </div>
  );
}
