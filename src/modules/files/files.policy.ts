import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../db/client.js';
import type { Actor } from '../../platform/auth.js';
import type { FileRow } from './files.service.js';

type SpaceCheck = (db: Queryable, actor: Actor, spaceId: number) => Promise<boolean>;
let spaceCheck: SpaceCheck | null = null;

/** The spaces module tells files how to decide space membership, so files never reads its tables. */
export function setSpaceReadCheck(check: SpaceCheck): void {
  spaceCheck = check;
}

/**
 * Who may download a file: a user's avatar, anyone sharing an organization with its owner;
 * an organization file, its members, and if it belongs to a space, those who can read the space.
 */
export async function canReadFile(db: Queryable, actor: Actor, file: FileRow): Promise<boolean> {
  if (file.organizationId === null) {
    if (file.uploaderId === actor.userId) return true;
    const rows = await queryRows<{ ok: number }>(db, sql`
      select 1 as ok from organization_members
      where organization_id = ${actor.organizationId} and user_id = ${file.uploaderId} limit 1`);
    return rows.length > 0;
  }
  if (file.organizationId !== actor.organizationId) return false;
  if (file.spaceId !== null && spaceCheck) return spaceCheck(db, actor, file.spaceId);
  return true;
}
