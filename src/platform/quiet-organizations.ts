import { sql, type SQL } from 'drizzle-orm';

/**
 * Organizations this instance knows to have no enabled webhook and no enabled automation rule, each
 * with the listeners version it saw that at (`event_counters.listeners_version`, which migration
 * 0022's triggers set from a sequence whenever a webhook or rule is created, deleted, enabled or
 * disabled, by any instance). A write of such an organization skips the listener reads marked
 * `quiet` (they would find nothing): one round trip less per write. Its record statement checks the
 * version as the counter row's lock leaves it: had the listeners changed since, the statement fails
 * with a serialization failure, the entry is dropped and the transaction runs again, reading them
 * (db/tx.ts). So a write that commits has seen every listener enabled before its record statement,
 * as when it read them itself.
 *
 * Learned from every record statement: the version and whether the organization has any listener,
 * both as of that statement's snapshot. Its own transaction may yet roll back; a version it bumped
 * itself then never becomes the committed one (sequence values are not reused), so the entry can
 * only fail a later guard, never pass a wrong one.
 */
export class QuietOrganizations {
  private readonly versions = new Map<number, number>();

  /** The version the organization was seen quiet at, if it was. */
  versionOf(organizationId: number): number | undefined {
    return this.versions.get(organizationId);
  }

  learn(organizationId: number, version: number, busy: boolean): void {
    if (busy) this.versions.delete(organizationId);
    else this.versions.set(organizationId, version);
  }

  forget(organizationId: number): void {
    this.versions.delete(organizationId);
  }
}

/** SQL: whether the organization has an enabled webhook or automation rule (two partial-index probes). */
export const busySql = (organizationId: number): SQL =>
  sql`(exists (select 1 from webhooks w where w.organization_id = ${organizationId} and w.enabled)
       or exists (select 1 from automation_rules r where r.organization_id = ${organizationId} and r.enabled))`;
