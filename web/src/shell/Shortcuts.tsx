import { useEffect, useRef, useState } from 'react';
import { t, type MessageKey } from '../i18n';
import { typing } from '../board/keyboard';

const LIST: Array<[string, MessageKey]> = [
  ['/', 'shortcuts.search'],
  ['n', 'shortcuts.newCard'],
  ['↑ ↓ ← →', 'shortcuts.arrows'],
  ['Enter', 'shortcuts.open'],
  ['Space', 'shortcuts.lift'],
  ['Esc', 'shortcuts.close'],
  ['?', 'shortcuts.help'],
];

/** Keyboard shortcuts everywhere in the app: "/" to search, "?" for this list. (The board adds "n".) */
export function Shortcuts() {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
      if (e.key === '?') {
        e.preventDefault();
        setOpen(true);
      } else if (e.key === '/') {
        const search = document.querySelector<HTMLInputElement>('.search-box input');
        if (search && search.offsetParent) {
          e.preventDefault();
          search.focus();
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    if (open && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [open]);
  if (!open) return null;
  return (
    <dialog ref={dialog} className="move-dialog shortcuts" aria-labelledby="shortcuts-title" onClose={() => setOpen(false)}>
      <h2 id="shortcuts-title">{t('shortcuts.title')}</h2>
      <dl>
        {LIST.map(([keys, what]) => (
          <div key={keys} className="shortcut">
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{t(what)}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button className="primary" autoFocus>
          {t('action.close')}
        </button>
      </form>
    </dialog>
  );
}
