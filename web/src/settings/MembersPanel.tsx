import { useQuery } from '@tanstack/react-query';
import { api, call, type Member } from '../api/client';
import { keys, meQuery, organizationQuery } from '../api/queries';
import { noop, useAction } from '../common/action';
import { Avatar } from '../common/people';
import { ConfirmButton } from '../common/ConfirmButton';
import { canManageMember, type OrgRole } from './model';
import { Table } from './Table';
import { t, type MessageKey } from '../i18n';
import { errorText } from '../common/toast';

const ROLE_NAMES: Record<OrgRole, MessageKey> = { owner: 'role.owner', admin: 'role.admin', member: 'role.member' };
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
            aria-label={t('members.roleOf', { name: member.name })}
            value={member.role}
            onChange={(e) => void write(() => call(api.PATCH('/user/organization/members/{userId}/role', { params: { path }, body: { role: e.target.value as 'admin' | 'member' } }))).catch(noop)}
          >
            <option value="admin">{t(ROLE_NAMES.admin)}</option>
            <option value="member">{t(ROLE_NAMES.member)}</option>
          </select>
        ) : (
          t(ROLE_NAMES[member.role])
        )}
      </td>
      <td>
        {member.active ? t('members.active') : t('members.deactivated')}
        {member.pending === 'unclaimed' && <span title={t('members.unclaimedHint')}> · {t('members.unclaimed')}</span>}
      </td>
      <td className="actions">
        {manage && (
          <>
            <button
              type="button"
              aria-label={member.active ? t('members.deactivateName', { name: member.name }) : t('members.activateName', { name: member.name })}
              onClick={() => void write(() => call(api.PATCH('/user/organization/members/{userId}/active', { params: { path }, body: { active: !member.active } }))).catch(noop)}
            >
              {member.active ? t('members.deactivate') : t('members.activate')}
            </button>
            <ConfirmButton
              label={t('members.remove')}
              name={member.name}
              question={t('members.removeQuestion', { name: member.name })}
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
  if (error) return <p className="form-error" role="alert">{errorText(error)}</p>;
  if (!organization) return <p className="loading">{t('members.loading')}</p>;
  const members = organization.members.filter((m) => !m.deleted).sort((a, b) => RANK[a.role] - RANK[b.role] || a.name.localeCompare(b.name));
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">{t('members.title')}</h2>
      <p className="muted">
        {t('members.seats', { used: organization.activeOrganizationUsersCount, available: organization.availableUsersCount })}
      </p>
      <Table columns={[t('members.name'), t('members.email'), t('members.role'), t('members.status'), '']} testId="members">
        {members.map((m) => (
          <MemberRow key={m.userId} member={m} manage={canManageMember(organization.role, me?.id, m)} />
        ))}
      </Table>
    </section>
  );
}
