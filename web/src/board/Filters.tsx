import type { Label, Member } from '../api/client';
import { isFiltered, NO_FILTER, type BoardFilter } from './model';

const num = (v: string) => (v === '' ? null : Number(v));

export function Filters({ filter, onChange, members, labels }: { filter: BoardFilter; onChange: (f: BoardFilter) => void; members: Member[]; labels: Label[] }) {
  return (
    <div className="filters" role="group" aria-label="Filter cards">
      <label>
        Assignee
        <select value={filter.assigneeId ?? ''} onChange={(e) => onChange({ ...filter, assigneeId: num(e.target.value) })}>
          <option value="">Anyone</option>
          {members.map((m) => (
            <option key={m.userId} value={m.userId}>
              {m.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Label
        <select value={filter.labelId ?? ''} onChange={(e) => onChange({ ...filter, labelId: num(e.target.value) })}>
          <option value="">Any</option>
          {labels.map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Status
        <select value={filter.status ?? ''} onChange={(e) => onChange({ ...filter, status: num(e.target.value) })}>
          <option value="">Any</option>
          <option value="0">In work</option>
          <option value="1">Done</option>
          <option value="2">Rejected</option>
          <option value="3">Needs attention</option>
        </select>
      </label>
      <label>
        Due
        <select value={filter.due} onChange={(e) => onChange({ ...filter, due: e.target.value as BoardFilter['due'] })}>
          <option value="any">Any time</option>
          <option value="overdue">Overdue</option>
          <option value="week">Next 7 days</option>
          <option value="none">No due date</option>
        </select>
      </label>
      {isFiltered(filter) && (
        <button type="button" className="ghost" onClick={() => onChange(NO_FILTER)}>
          Clear filters
        </button>
      )}
    </div>
  );
}
