import { useQuery } from '@tanstack/react-query';
import { api, call, type Member } from '../api/client';
import { keys, meQuery, organizationQuery } from '../api/queries';
import { noop, useAction } from '../common/action';
import { Avatar } from '../common/people';
import { ConfirmButton } from '../common/ConfirmButton';
import { canManageMember, type OrgRole } from './model';
import { Table } from './Table';

const ROLE_NAMES: Record<OrgRole, string> = { owner: 'Owner', admin: 'Administrator', member: 'Member' };
const RANK: Record<OrgRole, number> = { owner: 0, admin: 1, member: 2 };

function MemberRow({ member, manage }: { member: Member; manage: boolean }) {
  const run = useAction();
  const path = { userId: member.userId };
  const write = (work: () => Promise<unknown>) => run(work, keys.organization);
  return (
    <tr>
      <td className="person">
        <Avatar member={member} /> {member.name}
      </td>
      <td>{member.email}</td>
      <td>
        {manage ? (
          <select
            aria-label={`Role of ${member.name}`}
            value={member.role}
            onChange={(e) => void write(() => call(api.PATCH('/user/organization/members/{userId}/role', { params: { path }, body: { role: e.target.value as 'admin' | 'member' } }))).catch(noop)}
          >
            <option value="admin">{ROLE_NAMES.admin}</option>
            <option value="member">{ROLE_NAMES.member}</option>
          </select>
        ) : (
          ROLE_NAMES[member.role]
        )}
      </td>
      <td>{member.active ? 'Active' : 'Deactivated'}</td>
      <td className="actions">
        {manage && (
          <>
            <button
              type="button"
              aria-label={`${member.active ? 'Deactivate' : 'Activate'} ${member.name}`}
              onClick={() => void write(() => call(api.PATCH('/user/organization/members/{userId}/active', { params: { path }, body: { active: !member.active } }))).catch(noop)}
            >
              {member.active ? 'Deactivate' : 'Activate'}
            </button>
            <ConfirmButton
              label="Remove"
              name={member.name}
              question={`Remove ${member.name} from the organization?`}
              onConfirm={() => write(() => call(api.DELETE('/user/organization/members/{userId}', { params: { path } })))}
            />
          </>
        )}
      </td>
    </tr>
  );
}

/** The organization's people with their roles; administrators change roles, deactivate and remove. */
export function MembersPanel() {
  const { data: organization, error } = useQuery(organizationQuery);
  const { data: me } = useQuery(meQuery);
  if (error) return <p className="form-error" role="alert">{error.message}</p>;
  if (!organization) return <p className="loading">Loading members…</p>;
  const members = organization.members.filter((m) => !m.deleted).sort((a, b) => RANK[a.role] - RANK[b.role] || a.name.localeCompare(b.name));
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <p className="muted">
        {organization.activeOrganizationUsersCount} of {organization.availableUsersCount} seats in use. Deactivating or removing someone signs them out at once.
      </p>
      <Table columns={['Name', 'Email', 'Role', 'Status', '']} testId="members">
        {members.map((m) => (
          <MemberRow key={m.userId} member={m} manage={canManageMember(organization.role, me?.id, m)} />
        ))}
      </Table>
    </section>
  );
}
