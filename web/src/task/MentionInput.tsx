import { useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Avatar } from '../common/people';
import { activeMention, insertMention, labelOf, matchPeople, startMention, type Person, type Picked } from './mentions';
import { t } from '../i18n';

interface Props {
  value: string;
  onChange: (text: string) => void;
  /** A person picked from the list; the text then holds `picked.label`. */
  onPick: (picked: Picked) => void;
  /** Who may be mentioned: the people who can read the task. */
  people: readonly Person[];
  label: string;
  name?: string;
  rows?: number;
  placeholder?: string;
  autoFocus?: boolean;
}

/**
 * A textarea that offers people after `@`: typing filters the list, ↑/↓ choose, Enter or Tab
 * picks, Escape closes; a click picks too. The textarea keeps the focus throughout (the list's
 * active option is announced through aria-activedescendant).
 */
export function MentionInput({ value, onChange, onPick, people, label, name, rows = 2, placeholder, autoFocus }: Props) {
  const input = useRef<HTMLTextAreaElement>(null);
  const listId = useId();
  const [caret, setCaret] = useState(0);
  const [focused, setFocused] = useState(false);
  const [active, setActive] = useState(0);
  // The `@` whose list was closed (picked or dismissed) stays closed until another `@` is typed.
  const [closedAt, setClosedAt] = useState<number | null>(null);
  const pendingCaret = useRef<number | null>(null);

  const mention = activeMention(value, caret);
  const matches = mention && mention.start !== closedAt ? matchPeople(people, mention.query) : [];
  const open = focused && matches.length > 0;
  const current = Math.min(active, matches.length - 1);
  const optionId = (i: number) => `${listId}-option-${i}`;

  useLayoutEffect(() => {
    if (pendingCaret.current === null || !input.current) return;
    input.current.setSelectionRange(pendingCaret.current, pendingCaret.current);
    pendingCaret.current = null;
  });

  const track = () => setCaret(input.current?.selectionStart ?? 0);

  function pick(person: Person) {
    if (!mention) return;
    const labelText = labelOf(person, people);
    const next = insertMention(value, mention.start, caret, labelText);
    pendingCaret.current = next.caret;
    setCaret(next.caret);
    setClosedAt(mention.start);
    onChange(next.text);
    onPick({ label: labelText, userId: person.userId });
    input.current?.focus();
  }

  function mentionFromButton() {
    const next = startMention(value, input.current?.selectionStart ?? value.length);
    pendingCaret.current = next.caret;
    setCaret(next.caret);
    setClosedAt(null);
    setActive(0);
    onChange(next.text);
    input.current?.focus();
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (!open) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((current + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      e.preventDefault();
      pick(matches[current]!);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      setClosedAt(mention!.start);
    }
  }

  return (
    <div className="mention-input">
      <textarea
        ref={input}
        name={name}
        value={value}
        rows={rows}
        aria-label={label}
        placeholder={placeholder}
        autoFocus={autoFocus}
        aria-autocomplete="list"
        aria-controls={open ? listId : undefined}
        aria-activedescendant={open ? optionId(current) : undefined}
        onChange={(e) => {
          const at = e.target.selectionStart;
          if (e.target.value.length > value.length && e.target.value[at - 1] === '@') setClosedAt(null);
          setActive(0);
          setCaret(at);
          onChange(e.target.value);
        }}
        onKeyDown={onKeyDown}
        onKeyUp={(e) => !['ArrowDown', 'ArrowUp'].includes(e.key) && track()}
        onClick={track}
        onFocus={() => setFocused(true)}
        onBlur={() => setFocused(false)}
      />
      {open && (
        <ul className="mention-list" role="listbox" id={listId} aria-label={t('task.mention')}>
          {matches.map((p, i) => (
            <li
              key={p.userId}
              id={optionId(i)}
              role="option"
              aria-selected={i === current}
              className={i === current ? 'active' : ''}
              onMouseDown={(e) => e.preventDefault()}
              onMouseEnter={() => setActive(i)}
              onClick={() => pick(p)}
            >
              <Avatar member={p} size={20} /> {p.name} {p.email && <span className="muted">{p.email}</span>}
            </li>
          ))}
        </ul>
      )}
      <button type="button" className="ghost mention-button" aria-label={t('task.mention')} title={t('task.mention')} onClick={mentionFromButton}>
        @
      </button>
    </div>
  );
}

