import type { Label, Member } from '../api/client';
import { isFiltered, NO_FILTER, type BoardFilter } from './model';
import { t } from '../i18n';

const num = (v: string) => (v === '' ? null : Number(v));

export function Filters({ filter, onChange, members, labels }: { filter: BoardFilter; onChange: (f: BoardFilter) => void; members: Member[]; labels: Label[] }) {
  return (
    <div className="filters" role="group" aria-label={t('filter.cards')}>
      <label>
        {t('filter.assignee')}
        <select value={filter.assigneeId ?? ''} onChange={(e) => onChange({ ...filter, assigneeId: num(e.target.value) })}>
          <option value="">{t('filter.anyone')}</option>
          {members.map((m) => (
            <option key={m.userId} value={m.userId}>
              {m.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('filter.label')}
        <select value={filter.labelId ?? ''} onChange={(e) => onChange({ ...filter, labelId: num(e.target.value) })}>
          <option value="">{t('filter.any')}</option>
          {labels.map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t('filter.status')}
        <select value={filter.status ?? ''} onChange={(e) => onChange({ ...filter, status: num(e.target.value) })}>
          <option value="">{t('filter.anyStatus')}</option>
          <option value="0">{t('status.0')}</option>
          <option value="1">{t('status.1')}</option>
          <option value="2">{t('status.2')}</option>
          <option value="3">{t('status.3')}</option>
        </select>
      </label>
      <label>
        {t('filter.due')}
        <select value={filter.due} onChange={(e) => onChange({ ...filter, due: e.target.value as BoardFilter['due'] })}>
          <option value="any">{t('filter.anyTime')}</option>
          <option value="overdue">{t('filter.overdue')}</option>
          <option value="week">{t('filter.week')}</option>
          <option value="none">{t('filter.noDue')}</option>
        </select>
      </label>
      {isFiltered(filter) && (
        <button type="button" className="ghost" onClick={() => onChange(NO_FILTER)}>
          {t('filter.clear')}
        </button>
      )}
    </div>
  );
}
