import { eq } from 'drizzle-orm';
import type { Queryable } from '../../../db/client.js';
import { inviteLinks } from '../../../db/schema/index.js';
import { iso } from '../../../platform/http.js';

type InviteLinkRow = typeof inviteLinks.$inferSelect;

export function presentInviteLink(row: InviteLinkRow) {
  return {
    id: row.id,
    token: row.token,
    url: `/invite-links/${row.token}`,
    role: row.role as 'editor' | 'member' | 'reader',
    enabled: row.enabled,
    createdById: row.createdById,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export async function loadInviteLink(db: Queryable, spaceId: number) {
  const [row] = await db.select().from(inviteLinks).where(eq(inviteLinks.spaceId, spaceId));
  return row ? presentInviteLink(row) : null;
}
