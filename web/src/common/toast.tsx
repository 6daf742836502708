import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { t } from '../i18n';
import { describeError } from './errors';
import { X } from 'lucide-react';

interface Action {
  label: string;
  run: () => void;
}

interface Toast {
  id: number;
  text: string;
  kind: 'error' | 'info';
  action?: Action;
}

type Show = (text: string, kind?: Toast['kind'], action?: Action) => void;
const ToastContext = createContext<Show>(() => {});

/** Messages that come and go (a refused move, a saved setting); errors are announced assertively, a Retry beside those worth another try. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((x) => x.id !== id)), []);
  const show = useCallback<Show>(
    (text, kind = 'info', action) => {
      const id = Math.random();
      setToasts((list) => [...list.slice(-3), { id, text, kind, action }]);
      setTimeout(() => dismiss(id), action ? 15_000 : kind === 'error' ? 8000 : 4000);
    },
    [dismiss],
  );
  return (
    <ToastContext.Provider value={show}>
      {children}
      <div className="toasts" role="alert" aria-live="assertive">
        {toasts
          .filter((x) => x.kind === 'error')
          .map((x) => (
            <div key={x.id} className="toast toast-error" data-testid="toast-error">
              <span>{x.text}</span>
              {x.action && (
                <button
                  type="button"
                  className="toast-action"
                  onClick={() => {
                    dismiss(x.id);
                    x.action!.run();
                  }}
                >
                  {x.action.label}
                </button>
              )}
              <button type="button" className="toast-close" aria-label={t('action.dismiss')} onClick={() => dismiss(x.id)}>
                <X aria-hidden="true" size={16} />
              </button>
            </div>
          ))}
      </div>
      <div className="toasts toasts-info" role="status" aria-live="polite">
        {toasts
          .filter((x) => x.kind === 'info')
          .map((x) => (
            <div key={x.id} className="toast">
              {x.text}
            </div>
          ))}
      </div>
    </ToastContext.Provider>
  );
}

export const useToast = () => useContext(ToastContext);

/** The text to show for a failed request: words from the problem's code and detail (common/errors.ts). */
export const errorText = describeError;
