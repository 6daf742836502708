import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';

interface Toast {
  id: number;
  text: string;
  kind: 'error' | 'info';
}

const ToastContext = createContext<(text: string, kind?: Toast['kind']) => void>(() => {});

/** Messages that come and go (a refused move, a saved setting); errors are announced assertively. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const show = useCallback((text: string, kind: Toast['kind'] = 'info') => {
    const id = Math.random();
    setToasts((list) => [...list.slice(-3), { id, text, kind }]);
    setTimeout(() => setToasts((list) => list.filter((t) => t.id !== id)), kind === 'error' ? 8000 : 4000);
  }, []);
  return (
    <ToastContext.Provider value={show}>
      {children}
      <div className="toasts" role="alert" aria-live="assertive">
        {toasts
          .filter((t) => t.kind === 'error')
          .map((t) => (
            <div key={t.id} className="toast toast-error" data-testid="toast-error">
              {t.text}
            </div>
          ))}
      </div>
      <div className="toasts toasts-info" role="status" aria-live="polite">
        {toasts
          .filter((t) => t.kind === 'info')
          .map((t) => (
            <div key={t.id} className="toast">
              {t.text}
            </div>
          ))}
      </div>
    </ToastContext.Provider>
  );
}

export const useToast = () => useContext(ToastContext);

/** The text to show for a failed request. */
export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
