import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { meQuery, organizationQuery } from '../api/queries';
import { useMembers } from '../common/useMembers';
import { SpaceSelect } from '../common/SpaceSelect';
import { CsvLink, csvUrl } from './CsvLink';
import { Head, hours } from './Numbers';
import { membersReportQuery } from './queries';
import { rangeProblem, type Range } from './range';
import { RangeControls, useRange } from './RangeControls';
import { isOrganizationAdmin } from '../common/roles';
import { UserReport } from './UserReport';
import { t } from '../i18n';
import '../common/screens.css';
import './analytics.css';

/** The organization's member report, for its admins. */
function MembersReport({ range }: { range: Range }) {
  const [spaceId, setSpaceId] = useState<number | null>(null);
  const members = useMembers();
  const { data: rows, error } = useQuery({ ...membersReportQuery(range, spaceId), enabled: !rangeProblem(range) });
  return (
    <section className="section" aria-labelledby="members-report">
      <h2 id="members-report">{t('reports.members')}</h2>
      <p className="row">
        <SpaceSelect value={spaceId} onChange={setSpaceId} />
        <CsvLink href={csvUrl('/analytics/members', range, spaceId ? { spaceId } : {})} label={t('reports.csv.members')} />
      </p>
      {error && <p className="notice error" role="alert">{error.message}</p>}
      {rows && (
        <table className="report-table">
          <caption className="sr-only">{t('reports.memberReport')}</caption>
          <Head columns={[t('numbers.column.member'), t('reports.column.assigned'), t('numbers.finished'), t('numbers.overdue'), t('numbers.planned'), t('numbers.spent'), t('reports.column.lastActive')]} />
          <tbody>
            {rows.map((r) => (
              <tr key={r.userId}>
                <th scope="row">
                  <Link to={`/analytics/users/${r.userId}`}>{members.get(r.userId)?.name ?? t('numbers.userN', { id: r.userId })}</Link>
                </th>
                <td>{r.assigned}</td>
                <td>{r.finished}</td>
                <td>{r.overdue}</td>
                <td>{hours(r.planTime)}</td>
                <td>{hours(r.factTime)}</td>
                <td>{r.lastActivityDate ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Organization reports: one's own numbers for everyone, the member report for admins. */
export function ReportsPage() {
  const [range, setRange] = useRange();
  const { data: me } = useQuery(meQuery);
  const { data: organization } = useQuery(organizationQuery);
  return (
    <div className="screen analytics">
      <header className="screen-header">
        <h1>{t('reports.title')}</h1>
        <RangeControls range={range} onChange={setRange} />
      </header>
      {me && <UserReport userId={me.id} range={range} title={t('reports.myTasks')} />}
      {isOrganizationAdmin(organization?.role) && <MembersReport range={range} />}
    </div>
  );
}

/** One member's report (the member itself or an organization admin may read it). */
export function UserReportPage() {
  const userId = Number(useParams().userId);
  const [range, setRange] = useRange();
  const name = useMembers().get(userId)?.name ?? t('numbers.userN', { id: userId });
  return (
    <div className="screen analytics">
      <header className="screen-header">
        <h1>{t('reports.reportOf', { name })}</h1>
        <Link to="/analytics">{t('reports.all')}</Link>
        <RangeControls range={range} onChange={setRange} />
      </header>
      <UserReport userId={userId} range={range} title={t('reports.tasksOf', { name })} />
    </div>
  );
}
