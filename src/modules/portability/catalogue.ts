import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../../db/schema/index.js';

/**
 * What an organization export does with every table of the schema. The list is checked against
 * the schema (catalogue.test.ts): a table added without a line here fails the build, so nobody's
 * new data silently stays behind or, worse, leaks a secret into an archive.
 *
 * Exported tables are found and linked by their metadata: rows of the organization
 * (`organization_id`), foreign keys (remapped on import). What the metadata cannot say is written
 * here: secret columns, ids kept without a foreign key, ids inside JSON.
 */
export type Classification =
  | {
      export: true;
      /** Columns left out, with why (secrets, credentials, per-instance state). */
      omit?: Record<string, string>;
      /** Columns holding ids of another table without a foreign key (arrays too). */
      softRefs?: Record<string, string>;
      /** JSON columns whose id-named keys (stageId, userIds, …) are remapped, see JSON_ID_KEYS. */
      jsonIds?: string[];
      /** JSON object columns keyed by ids of a table (a table row's cells by column id). */
      jsonKeys?: Record<string, string>;
      /** Tables the values under those keys may name (a `user` or `task` column's cell), see Resolver.valueTable. */
      jsonKeyValues?: string[];
      /** Rows the database writes itself (triggers) on import: replaced by the archive's own. */
      filledByTrigger?: true;
    }
  | {
      export: false;
      reason: 'secret' | 'derived' | 'instance' | 'job';
      why: string;
      /** Kept by database triggers from other tables as they are loaded: left out of a whole-instance backup too. */
      rebuiltByTriggers?: true;
    };

const SECRET = 'a credential';

export const CATALOGUE: Record<string, Classification> = {
  // The organization and the people in it: read through the membership, matched by email on import.
  organizations: { export: true, omit: { owner_id: 'the importing user owns the new organization', available_users_count: 'licensing of this instance', license_end_date: 'licensing', trial_end_date: 'licensing' }, softRefs: { avatar_file_id: 'files' } },
  users: {
    export: true,
    omit: { password_hash: SECRET, is_operator: 'a privilege on this instance', active_organization_id: 'a session preference', avatar_file_id: 'avatars belong to no organization', created_at: 'the account, not the organization', updated_at: 'the account' },
  },
  organization_members: { export: true },
  files: { export: true, softRefs: { space_id: 'spaces' } },

  spaces: { export: true, softRefs: { intro_reglament_id: 'reglaments' } },
  space_members: { export: true },
  space_groups: { export: true },
  space_user_settings: { export: true },
  project_groups: { export: true },
  projects: { export: true },
  project_spaces: { export: true },
  project_user_settings: { export: true },
  project_tabs: { export: true },
  project_templates: { export: true, jsonIds: ['tabs', 'tasks'] },
  project_documentation: { export: true },
  project_documentation_files: { export: true },
  stages: { export: true },
  labels: { export: true },
  tasks: { export: true },
  task_stages: { export: true },
  task_assignees: { export: true },
  task_members: { export: true },
  task_labels: { export: true },
  task_inspectors: { export: true },
  task_covers: { export: true },
  task_history: { export: true, softRefs: { automation_rule_id: 'automation_rules' } },
  task_messages: { export: true },
  message_attachments: { export: true },
  message_drive_attachments: { export: true },
  message_mentions: { export: true },
  message_reactions: { export: true },
  subtasks: { export: true },
  time_records: { export: true },
  timers: { export: true },
  table_columns: { export: true },
  table_rows: { export: true, jsonKeys: { cells: 'table_columns' }, jsonKeyValues: ['users', 'tasks'] },
  // History the reports are computed from: kept as it was, not rewritten by the import's own inserts.
  task_stage_stays: { export: true, filledByTrigger: true },
  task_status_changes: { export: true, filledByTrigger: true },
  user_activity_days: { export: true },
  documentation_groups: { export: true },
  pages: { export: true, omit: { public_token: 'a public link is a credential; the imported page is not published' } },
  page_versions: { export: true },
  page_files: { export: true },
  page_user_settings: { export: true },
  reglament_groups: { export: true },
  reglaments: { export: true },
  reglament_spaces: { export: true },
  reglament_versions: { export: true },
  reglament_questions: { export: true },
  reglament_answers: { export: true },
  reglament_question_files: { export: true },
  reglament_files: { export: true },
  reglament_favorites: { export: true },
  reglament_passes: { export: true },
  reglament_events: { export: true },
  automation_rules: { export: true, softRefs: { stage_ids: 'stages' }, jsonIds: ['trigger', 'conditions', 'actions'], omit: { next_run_at: 'recomputed when the rule next runs', last_error: 'state of this instance' } },
  webhooks: { export: true, omit: { secret: 'a signing secret: the import makes a new one and leaves the webhook disabled', failure_count: 'delivery state', disabled_reason: 'delivery state' } },
  ai_llm_settings: { export: true, omit: { api_key_encrypted: 'an LLM key', api_key_last4: 'part of an LLM key' } },
  ai_conversations: { export: true },
  ai_messages: { export: true },

  sessions: { export: false, reason: 'secret', why: 'sign-in sessions' },
  api_tokens: { export: false, reason: 'secret', why: 'personal API tokens' },
  invite_links: { export: false, reason: 'secret', why: 'an invite link token lets anyone join' },
  cloud_drive_integrations: { export: false, reason: 'secret', why: 'a user’s cloud-drive OAuth tokens' },
  cloud_drive_auth_states: { export: false, reason: 'secret', why: 'OAuth states in flight' },
  user_two_factor: { export: false, reason: 'secret', why: 'a user’s TOTP secret (an account’s, not an organization’s)' },
  two_factor_recovery_codes: { export: false, reason: 'secret', why: 'hashes of a user’s recovery codes' },
  sign_in_challenges: { export: false, reason: 'secret', why: 'half-finished sign-ins awaiting a code' },
  oauth_keys: { export: false, reason: 'secret', why: 'the OAuth authorization server’s signing keys, sealed with this instance’s SECRETS_KEY' },
  oauth_records: { export: false, reason: 'secret', why: 'OAuth clients, grants, codes and tokens (hashed): connected apps sign in again on the new instance' },
  passkeys: { export: false, reason: 'secret', why: 'a user’s WebAuthn credentials, bound to this service’s relying-party id' },
  passkey_challenges: { export: false, reason: 'secret', why: 'WebAuthn challenges in flight' },
  password_reset_tokens: { export: false, reason: 'secret', why: 'hashes of emailed password-reset and account-claim links' },
  email_verifications: { export: false, reason: 'secret', why: 'hashes of emailed address-verification links' },
  space_invitations: { export: false, reason: 'secret', why: 'hashes of emailed invitation links; an open invitation is sent again from the new instance if still wanted' },
  notification_email_settings: { export: false, reason: 'instance', why: 'a user’s own notification email setting (an account’s, not an organization’s)' },
  email_outbox: { export: false, reason: 'job', why: 'this service’s outgoing mail, sent or waiting' },
  oidc_identities: { export: false, reason: 'instance', why: 'which single sign-on subject signs in to an account: bound to this service’s identity provider' },
  messenger_integrations: { export: false, reason: 'secret', why: 'a user’s messenger binding (chat id, pairing code)' },
  project_messenger_integrations: { export: false, reason: 'secret', why: 'a project’s messenger binding (chat id, pairing code)' },
  idempotency_keys: { export: false, reason: 'secret', why: 'stored answers of past requests' },

  events: { export: false, reason: 'derived', why: 'the change log, pruned and replayed to live clients only' },
  event_counters: { export: false, reason: 'derived', why: 'the change log’s counter' },
  // Kept from the tasks and their history, which the import writes: synced once at its end.
  analytics_facts: { export: false, reason: 'derived', why: 'the reports’ ledger, rebuilt from the imported tasks and history', rebuiltByTriggers: true },
  analytics_counts: { export: false, reason: 'derived', why: 'report rollups, rebuilt from the imported tasks', rebuiltByTriggers: true },
  analytics_days: { export: false, reason: 'derived', why: 'report rollups, rebuilt from the imported tasks', rebuiltByTriggers: true },
  analytics_flow: { export: false, reason: 'derived', why: 'report rollups, rebuilt from the imported history', rebuiltByTriggers: true },
  analytics_dirty: { export: false, reason: 'job', why: 'tasks waiting for their report rollups; a load syncs its own tasks', rebuiltByTriggers: true },
  notifications: { export: false, reason: 'derived', why: 'inbox entries made from the change log' },
  webhook_deliveries: { export: false, reason: 'derived', why: 'delivery log of past events' },
  automation_runs: { export: false, reason: 'derived', why: 'run log of past triggers' },
  ai_documents: { export: false, reason: 'derived', why: 'the search index, rebuilt by reindexing' },
  ai_chunks: { export: false, reason: 'derived', why: 'the search index, rebuilt by reindexing' },
  messenger_outbox: { export: false, reason: 'derived', why: 'messages waiting to be sent' },

  subscriptions: { export: false, reason: 'instance', why: 'billing of this instance' },
  reviews: { export: false, reason: 'instance', why: 'feedback sent to the operator' },
  partner_links: { export: false, reason: 'instance', why: 'the operator’s partner programme' },
  partner_link_visits: { export: false, reason: 'instance', why: 'the operator’s partner programme' },
  partner_referrals: { export: false, reason: 'instance', why: 'the operator’s partner programme' },
  ai_usage: { export: false, reason: 'instance', why: 'metered use of this instance’s LLM' },
  rate_limits: { export: false, reason: 'instance', why: 'request counters' },
  scheduled_jobs: { export: false, reason: 'instance', why: 'job timers' },
  messenger_poller: { export: false, reason: 'instance', why: 'the bot’s polling lease' },
  file_deletions: { export: false, reason: 'instance', why: 'storage clean-up queue' },

  import_jobs: { export: false, reason: 'job', why: 'import jobs of this instance' },
  ai_indexing_jobs: { export: false, reason: 'job', why: 'indexing jobs of this instance' },
  portability_jobs: { export: false, reason: 'job', why: 'export and import jobs (and their archives)' },
};

/** Keys of JSON documents that hold ids, and the table they name. */
export const JSON_ID_KEYS: Record<string, string> = {
  stageId: 'stages',
  userId: 'users',
  userIds: 'users',
  assigneeIds: 'users',
  labelId: 'labels',
  labelIds: 'labels',
  webhookId: 'webhooks',
  pageId: 'pages',
  projectId: 'projects',
  sourceProjectId: 'projects',
};

export interface Ref {
  column: string;
  table: string;
  nullable: boolean;
}

export interface TableInfo {
  name: string;
  /** Every column the database has, in order; `generated` ones are never written. */
  columns: { name: string; nullable: boolean; generated: boolean }[];
  primaryKey: string[];
  /** A single identity `id`: imported rows get new ones. */
  hasId: boolean;
  refs: Ref[];
  scope: 'organization' | 'self' | 'members';
  rule: Extract<Classification, { export: true }>;
}

/** Every table of the schema with its metadata, by name. */
export function schemaTables(): Map<string, { config: ReturnType<typeof getTableConfig> }> {
  const tables = new Map<string, { config: ReturnType<typeof getTableConfig> }>();
  for (const value of Object.values(schema)) {
    if (!(value instanceof PgTable)) continue;
    const config = getTableConfig(value);
    tables.set(config.name, { config });
  }
  return tables;
}

function describe(name: string, config: ReturnType<typeof getTableConfig>, rule: Extract<Classification, { export: true }>): TableInfo {
  const columns = config.columns.map((c) => ({ name: c.name, nullable: !c.notNull, generated: Boolean(c.generated) }));
  const primaryKey = [...config.columns.filter((c) => c.primary).map((c) => c.name), ...config.primaryKeys.flatMap((p) => p.columns.map((c) => c.name))];
  const nullable = (column: string) => columns.find((c) => c.name === column)?.nullable ?? true;
  const refs: Ref[] = [];
  for (const fk of config.foreignKeys) {
    const reference = fk.reference();
    const target = getTableConfig(reference.foreignTable).name;
    reference.columns.forEach((c, i) => {
      // A composite key names each column's own table (reglament_spaces → reglament_groups(id, space_id)).
      const foreign = reference.foreignColumns[i]!.name;
      const table = foreign === 'id' ? target : foreign === 'space_id' ? 'spaces' : target;
      if (!refs.some((r) => r.column === c.name)) refs.push({ column: c.name, table, nullable: nullable(c.name) });
    });
  }
  for (const [column, table] of Object.entries(rule.softRefs ?? {})) refs.push({ column, table, nullable: nullable(column) });
  const hasOrg = columns.some((c) => c.name === 'organization_id');
  return {
    name,
    columns,
    primaryKey,
    hasId: primaryKey.length === 1 && primaryKey[0] === 'id' && name !== 'organizations',
    refs: refs.filter((r) => r.column !== 'organization_id' && !rule.omit?.[r.column]),
    scope: name === 'organizations' ? 'self' : name === 'users' ? 'members' : hasOrg ? 'organization' : 'members',
    rule,
  };
}

/**
 * The exported tables in an order that loads: a table after every table its foreign keys name.
 * Self-references and soft references to later tables are filled in after the rows (see load.ts).
 */
export function exportPlan(): TableInfo[] {
  const infos = new Map<string, TableInfo>();
  for (const [name, { config }] of schemaTables()) {
    const rule = CATALOGUE[name];
    if (rule?.export) infos.set(name, describe(name, config, rule));
  }
  return loadOrder(infos);
}

/** Every table, every column, for an instance backup (ids are kept, so nothing is remapped). */
export function instancePlan(): TableInfo[] {
  const infos = new Map<string, TableInfo>();
  for (const [name, { config }] of schemaTables()) {
    const rule = CATALOGUE[name];
    if (rule && !rule.export && rule.rebuiltByTriggers) continue;
    infos.set(name, describe(name, config, rule?.export && rule.filledByTrigger ? { export: true, filledByTrigger: true } : { export: true }));
  }
  return loadOrder(infos);
}

function loadOrder(infos: Map<string, TableInfo>): TableInfo[] {
  const ordered: TableInfo[] = [];
  const placed = new Set<string>();
  const tenant = (t: TableInfo) => t.name !== 'organizations' && infos.has('organizations') && t.columns.some((c) => c.name === 'organization_id');
  const hardDeps = (t: TableInfo) => [
    ...t.refs.filter((r) => r.table !== t.name && !t.rule.softRefs?.[r.column] && infos.has(r.table)).map((r) => r.table),
    ...(tenant(t) ? ['organizations'] : []),
  ];
  // References without a foreign key are satisfied first too where no cycle forbids it; else filled in afterwards.
  const softDeps = (t: TableInfo) =>
    [...t.refs.map((r) => r.table), ...(t.rule.jsonIds ? Object.values(JSON_ID_KEYS) : []), ...Object.values(t.rule.jsonKeys ?? {}), ...(t.rule.jsonKeyValues ?? [])].filter((d) => d !== t.name && infos.has(d));
  while (placed.size < infos.size) {
    // Tables the database fills itself come last, after every insert that fires their triggers.
    const triggersDone = [...infos.values()].every((t) => t.rule.filledByTrigger || placed.has(t.name));
    const candidates = [...infos.values()].filter((t) => !placed.has(t.name) && hardDeps(t).every((d) => placed.has(d)) && (triggersDone || !t.rule.filledByTrigger));
    const preferred = candidates.filter((t) => softDeps(t).every((d) => placed.has(d)));
    // Alphabetical among the ready ones, so the archive's order is the same on every instance.
    const ready = (preferred.length > 0 ? preferred : candidates).sort((a, b) => a.name.localeCompare(b.name));
    if (ready.length === 0) throw new Error(`foreign keys form a cycle among ${[...infos.keys()].filter((n) => !placed.has(n)).join(', ')}`);
    for (const t of ready) {
      placed.add(t.name);
      ordered.push(t);
    }
  }
  return ordered;
}

/** Tables of the schema the catalogue does not classify, and classified names the schema lacks. */
export function unclassified(): { missing: string[]; unknown: string[] } {
  const names = [...schemaTables().keys()];
  return { missing: names.filter((n) => !CATALOGUE[n]).sort(), unknown: Object.keys(CATALOGUE).filter((n) => !names.includes(n)).sort() };
}
