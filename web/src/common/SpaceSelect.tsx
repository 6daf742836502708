import { useQuery } from '@tanstack/react-query';
import { spacesQuery } from '../api/queries';

/** A "Space" filter over the spaces the user reads; null is "All spaces". */
export function SpaceSelect({ value, onChange }: { value: number | null; onChange: (spaceId: number | null) => void }) {
  const { data: spaces = [] } = useQuery(spacesQuery);
  return (
    <label>
      Space{' '}
      <select value={value ?? ''} onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}>
        <option value="">All spaces</option>
        {spaces.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
    </label>
  );
}
