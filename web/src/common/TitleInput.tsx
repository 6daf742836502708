/** A heading that its editors rename in place: the new name is sent when focus leaves a changed, non-empty field. */
export function TitleInput({ id, label, name, onRename }: { id: string; label: string; name: string; onRename: (name: string) => void }) {
  return (
    <input
      id={id}
      className="title-input"
      aria-label={label}
      defaultValue={name}
      key={name}
      onBlur={(e) => {
        const next = e.target.value.trim();
        if (next && next !== name) onRename(next);
      }}
    />
  );
}
