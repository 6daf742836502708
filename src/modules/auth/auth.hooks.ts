import type { Queryable } from '../../db/client.js';

/**
 * Registration reaches into modules built on top of auth (space invite links, the partner
 * programme). They plug in here at start, so auth does not import them and no cycle forms.
 */
export const joinHooks: {
  joinByInvite?: (db: Queryable, userId: number, token: string) => Promise<{ organizationId: number }>;
  /**
   * Credits a partner link with the registration, in its transaction. organizationId is the
   * organization the registration created, null when the user joined one by invitation. An unknown
   * code is ignored: a stale link must never block signing up.
   */
  attributeReferral?: (db: Queryable, userId: number, organizationId: number | null, code: string) => Promise<void>;
} = {};
