import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { organizationQuery } from '../api/queries';
import { useAction } from '../common/action';
import { ServerCheckbox } from '../common/ServerCheckbox';
import { isOrgAdmin } from './model';
import { t } from '../i18n';

const switchKey = ['mcp-enabled'] as const;
const switchQuery = queryOptions({ queryKey: switchKey, queryFn: () => call(api.GET('/user/organization/mcp-enabled')) });

/** The organization's switch for AI agents (the MCP endpoint), for its owners and admins. */
export function AgentAccess() {
  const organization = useQuery(organizationQuery);
  const admin = !!organization.data && isOrgAdmin(organization.data.role);
  const { data } = useQuery({ ...switchQuery, enabled: admin });
  const run = useAction();
  if (!admin || !data) return null;
  const set = (value: boolean) => run(() => call(api.PATCH('/user/organization/mcp-enabled', { body: { mcpEnabled: value } })), switchKey);
  return (
    <section aria-labelledby="agents-title">
      <h3 id="agents-title">{t('agents.title')}</h3>
      <ServerCheckbox checked={data.mcpEnabled} onChange={set}>
        {t('agents.switch')}
      </ServerCheckbox>
    </section>
  );
}
