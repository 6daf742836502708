import type { Queryable } from '../../db/client.js';

/**
 * Registration reaches into modules built on top of auth (space invite links, the partner
 * programme). They plug in here at start, so auth does not import them and no cycle forms.
 */
export const joinHooks: {
  joinByInvite?: (db: Queryable, userId: number, token: string) => Promise<{ organizationId: number }>;
} = {};
