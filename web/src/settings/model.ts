import { t } from '../i18n';
import type { Member, Schemas } from '../api/client';

export type OrgRole = Member['role'];
export type InvitedRole = Schemas['InviteLink']['role'];
export type Webhook = Schemas['Webhook'];

export const isOrgAdmin = (role: OrgRole | undefined) => role === 'owner' || role === 'admin';

/**
 * Whether the caller is shown the role, deactivate and remove controls for a member: organization
 * admins may manage anyone but the owner (the API answers 400 OWNER_PROTECTED). One's own row has
 * none, so an admin cannot lock themselves out by a slip.
 */
export const canManageMember = (callerRole: OrgRole | undefined, callerId: number | undefined, member: Pick<Member, 'userId' | 'role' | 'deleted'>) =>
  isOrgAdmin(callerRole) && member.role !== 'owner' && member.userId !== callerId && !member.deleted;

/** The address a person opens to join by an invite link: the client's accept page. */
export const inviteUrl = (origin: string, token: string) => `${origin}/app/invite/${encodeURIComponent(token)}`;

/** A token's expiry `days` from now (null: never). */
export const expiresAtFor = (days: number | null, now = Date.now()) => (days === null ? null : new Date(now + days * 86_400_000).toISOString());

/** Event families offered as checkboxes; a webhook takes `family.*` for each one ticked. */
export const EVENT_GROUPS: ReadonlyArray<[family: string, label: string]> = [
  ['task', 'Tasks'],
  ['message', 'Chat messages'],
  ['time-record', 'Time records'],
  ['timer', 'Timers'],
  ['stage', 'Columns'],
  ['project', 'Projects'],
  ['space', 'Spaces'],
  ['page', 'Documentation pages'],
  ['reglament', 'Reglaments'],
  ['label', 'Labels'],
  ['organization', 'Organization'],
  ['webhook', 'Webhook pings'],
];

/** The form's view of a webhook's events: every event, ticked families, and other types as typed. */
export interface EventChoice {
  all: boolean;
  families: string[];
  other: string;
}

const FAMILIES = new Set(EVENT_GROUPS.map(([family]) => family));
const EVENT_PATTERN = /^[a-z][a-z0-9-]*(\.[a-z0-9-]+)*(\.\*)?$/;

export function choiceOf(events: readonly string[]): EventChoice {
  const families: string[] = [];
  const other: string[] = [];
  for (const e of events) {
    if (e === '*') continue;
    const family = e.endsWith('.*') ? e.slice(0, -2) : null;
    if (family !== null && FAMILIES.has(family)) families.push(family);
    else other.push(e);
  }
  return { all: events.includes('*'), families, other: other.join(', ') };
}

/** The events list to send, or the reason the choice cannot be sent. */
export function eventsOf(choice: EventChoice): { events: string[] } | { error: string } {
  if (choice.all) return { events: ['*'] };
  const typed = choice.other.split(/[\s,]+/).filter(Boolean);
  const wrong = typed.find((e) => !EVENT_PATTERN.test(e));
  if (wrong) return { error: t('webhooks.error.notEventType', { type: wrong }) };
  const events = [...new Set([...choice.families.map((f) => `${f}.*`), ...typed])];
  if (events.length === 0) return { error: t('webhooks.error.noEvent') };
  if (events.length > 100) return { error: t('webhooks.error.tooMany') };
  return { events };
}

/** Only what the edit changed (PATCH is partial); events compare as sets. */
export function webhookChanges(before: Pick<Webhook, 'url' | 'events'>, after: { url: string; events: string[] }): { url?: string; events?: string[] } {
  const changes: { url?: string; events?: string[] } = {};
  if (after.url !== before.url) changes.url = after.url;
  const same = after.events.length === before.events.length && after.events.every((e) => before.events.includes(e));
  if (!same) changes.events = after.events;
  return changes;
}
