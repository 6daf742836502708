import type { ReactNode } from 'react';

/** The settings pages' tables: column headings (an empty one is the row actions' column), then rows. */
export function Table({ columns, caption, testId, children }: { columns: string[]; caption?: string; testId: string; children: ReactNode }) {
  return (
    <table className="settings-table" data-testid={testId}>
      {caption && <caption className="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col">
              {c || <span className="sr-only">Actions</span>}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
