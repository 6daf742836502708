import type { ReactNode } from 'react';
import { t } from '../i18n';

/** The settings pages' tables: column headings (an empty one is the row actions' column), then rows. */
export function Table({ columns, caption, testId, children }: { columns: string[]; caption?: string; testId: string; children: ReactNode }) {
  return (
    <table className="settings-table" data-testid={testId}>
      {caption && <caption className="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col">
              {c || <span className="sr-only">{t('table.actions')}</span>}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
