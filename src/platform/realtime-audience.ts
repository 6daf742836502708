import { sql } from 'drizzle-orm';
import { idArray, queryRows, type Db } from '../db/client.js';
import { reglamentIdOf } from './event-types.js';

interface Listener {
  userId: number;
  credentialHash: string;
}

interface Target {
  type: string;
  payload: unknown;
  spaceId: number | null;
  projectId: number | null;
  userId: number | null;
  /** Only space editors and above may read it (a draft reglament). */
  editorsOnly?: boolean;
}

/** Where an event may be read through, for subscription filters: its project and that project's spaces (home and linked). */
export interface Place {
  projectIds: number[];
  /** null: any space (a departure whose spaces can no longer be known). */
  spaceIds: number[] | null;
}

/** Who, among the connected users of one organization, may read what — as of now. */
export interface Audience {
  /** The credential is live and the user still an active member of the organization. */
  valid(listener: Listener): boolean;
  mayRead(listener: Listener, event: Target): boolean;
  placeOf(event: Target): Place;
}

/**
 * Reads, with four set-based queries whatever the number of connections and events: live
 * credentials, organization memberships, space memberships of the connected users, and the spaces
 * of the events' projects (home and linked), the same rules as platform/access.ts. Reglament events
 * add a fifth, the spaces showing those reglaments, as the reglaments policy reads them.
 */
export async function audienceOf(db: Db, organizationId: number, listeners: Listener[], events: Target[]): Promise<Audience> {
  const projectIds = [...new Set(events.map((e) => e.projectId).filter((p): p is number => p !== null))];
  const reglamentIds = [...new Set(events.map((e) => reglamentIdOf(e.type, e.payload)).filter((r): r is number => r !== null))];
  const users = new Set(listeners.map((l) => l.userId));
  // Hex digests and grant ids (URL-safe characters): safe inside an array literal.
  const hashes = [...new Set(listeners.map((l) => l.credentialHash))];
  // An MCP session opened with an OAuth token is bound to its grant (`oauth:<grant id>`): live while the grant is.
  const grantIds = hashes.filter((h) => h.startsWith('oauth:')).map((h) => h.slice('oauth:'.length));
  const [live, members, spaces, projectSpaces, reglamentSpaces] = await Promise.all([
    queryRows<{ hash: string }>(
      db,
      sql`select token_hash as hash from sessions where token_hash = any(${`{${hashes.join(',')}}`}::text[]) and revoked_at is null and expires_at > now()
          union all
          select token_hash from api_tokens where token_hash = any(${`{${hashes.join(',')}}`}::text[]) and revoked_at is null
            and (expires_at is null or expires_at > now())
          union all
          select 'oauth:' || id from oauth_records where model = 'Grant' and id = any(${`{${grantIds.join(',')}}`}::text[])
            and (expires_at is null or expires_at > now())`,
    ),
    queryRows<{ userId: number; role: string }>(
      db,
      sql`select user_id as "userId", role from organization_members
          where organization_id = ${organizationId} and user_id = any(${idArray(users)}) and active and deleted_at is null`,
    ),
    queryRows<{ userId: number; spaceId: number; role: string }>(
      db,
      sql`select user_id as "userId", space_id as "spaceId", role from space_members
          where organization_id = ${organizationId} and user_id = any(${idArray(users)})`,
    ),
    projectIds.length === 0
      ? Promise.resolve([])
      : queryRows<{ projectId: number; spaceId: number }>(
          db,
          sql`select id as "projectId", space_id as "spaceId" from projects
              where organization_id = ${organizationId} and id = any(${idArray(projectIds)}) and deleted_at is null
              union all
              select ps.project_id, ps.space_id from project_spaces ps join projects p on p.id = ps.project_id
              where p.organization_id = ${organizationId} and ps.project_id = any(${idArray(projectIds)}) and p.deleted_at is null`,
        ),
    reglamentIds.length === 0
      ? Promise.resolve([])
      : queryRows<{ reglamentId: number; spaceId: number }>(
          db,
          sql`select reglament_id as "reglamentId", space_id as "spaceId" from reglament_spaces
              where organization_id = ${organizationId} and reglament_id = any(${idArray(reglamentIds)})`,
        ),
  ]);
  const liveHashes = new Set(live.map((r) => r.hash));
  const roleOf = new Map(members.map((m) => [Number(m.userId), m.role]));
  const spacesOf = new Map<number, Set<number>>();
  const editingOf = new Map<number, Set<number>>();
  for (const r of spaces) {
    for (const [map, keep] of [[spacesOf, true], [editingOf, r.role === 'editor' || r.role === 'admin']] as const) {
      if (!keep) continue;
      const set = map.get(Number(r.userId)) ?? new Set<number>();
      set.add(Number(r.spaceId));
      map.set(Number(r.userId), set);
    }
  }
  const homesOf = new Map<number, number[]>();
  for (const r of projectSpaces) homesOf.set(Number(r.projectId), [...(homesOf.get(Number(r.projectId)) ?? []), Number(r.spaceId)]);
  const shownIn = new Map<number, number[]>();
  for (const r of reglamentSpaces) shownIn.set(Number(r.reglamentId), [...(shownIn.get(Number(r.reglamentId)) ?? []), Number(r.spaceId)]);
  // The spaces an event is read through, when not just its own: a project's (home and linked), a reglament's.
  const readThrough = (e: Target): number[] | undefined => {
    if (e.projectId !== null && homesOf.has(e.projectId)) return homesOf.get(e.projectId);
    const reglament = reglamentIdOf(e.type, e.payload);
    return reglament === null ? undefined : shownIn.get(reglament);
  };

  return {
    valid: (l) => liveHashes.has(l.credentialHash) && roleOf.has(l.userId),
    mayRead(l, e) {
      if (e.userId !== null) return e.userId === l.userId;
      const role = roleOf.get(l.userId);
      if (!role) return false;
      const orgWide = role === 'owner' || role === 'admin';
      const mine = (e.editorsOnly ? editingOf : spacesOf).get(l.userId);
      const through = readThrough(e);
      if (through) return orgWide || through.some((s) => mine?.has(s) ?? false);
      // A project that is gone (deleted, in the trash) is judged by the space it was in.
      if (e.spaceId !== null) return orgWide || (mine?.has(e.spaceId) ?? false);
      if (e.projectId !== null) return orgWide;
      return true;
    },
    placeOf(e) {
      const spaceIds = new Set(readThrough(e) ?? []);
      if (e.spaceId !== null) spaceIds.add(e.spaceId);
      return { projectIds: e.projectId === null ? [] : [e.projectId], spaceIds: [...spaceIds] };
    },
  };
}
