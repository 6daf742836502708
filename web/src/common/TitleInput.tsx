/**
 * A heading that its editors rename in place: Enter or leaving a changed field sends the new name,
 * Escape puts the old one back; an emptied field says the name is required instead of dropping it.
 */
import { useState } from 'react';
import { t } from '../i18n';

export function TitleInput({ id, label, name, onRename }: { id: string; label: string; name: string; onRename: (name: string) => void }) {
  const [empty, setEmpty] = useState(false);
  const errorId = `${id}-error`;
  return (
    <span className="title-field">
      <input
        id={id}
        className="title-input"
        aria-label={label}
        aria-invalid={empty || undefined}
        aria-describedby={empty ? errorId : undefined}
        defaultValue={name}
        key={name}
        onChange={(e) => empty && e.target.value.trim() && setEmpty(false)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            e.currentTarget.blur();
          } else if (e.key === 'Escape') {
            // Escape undoes the edit; a second Escape (nothing to undo) closes the drawer.
            if (e.currentTarget.value !== name || empty) {
              e.preventDefault();
              e.nativeEvent.preventDefault();
              e.currentTarget.value = name;
              setEmpty(false);
            }
          }
        }}
        onBlur={(e) => {
          const next = e.target.value.trim();
          if (!next) {
            setEmpty(true);
            return;
          }
          setEmpty(false);
          if (next !== name) onRename(next);
        }}
      />
      {empty && (
        <span className="field-error" id={errorId} role="alert">
          {t('form.nameRequired')}
        </span>
      )}
    </span>
  );
}
