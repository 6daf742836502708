import { useQuery } from '@tanstack/react-query';
import { spacesQuery } from '../api/queries';
import { t } from '../i18n';

/** A "Space" filter over the spaces the user reads; null is "All spaces". */
export function SpaceSelect({ value, onChange }: { value: number | null; onChange: (spaceId: number | null) => void }) {
  const { data: spaces = [] } = useQuery(spacesQuery);
  return (
    <label>
      {t('space.label')}{' '}
      <select value={value ?? ''} onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}>
        <option value="">{t('space.all')}</option>
        {spaces.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </select>
    </label>
  );
}
