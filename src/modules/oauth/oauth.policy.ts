import type { Actor } from '../../platform/auth.js';
import { forbidden } from '../../platform/errors.js';

/** The scopes of the MCP resource, in the order the consent screen shows them. */
export const MCP_SCOPES = ['tasks:read', 'tasks:write', 'docs:read'] as const;
export type OAuthScope = (typeof MCP_SCOPES)[number];

/** Where oidc-provider's endpoints are mounted. */
export const OAUTH_PREFIX = '/oauth';

/** The one resource (RFC 8707) tokens are issued for: the MCP endpoint. */
export const mcpResource = (publicUrl: string): string => `${publicUrl}/mcp`;

/**
 * Granting an app access, and seeing or revoking what was granted, is for the person at the web
 * client, signed in with a session: a personal API token (or an OAuth token, which these routes do
 * not accept at all) must not hand out or take back access on its user's behalf. 403 otherwise.
 */
export function authorizeGrantManagement(actor: Actor): void {
  if (actor.sessionId === null) throw forbidden('only a signed-in session can grant or revoke app access, not an API token');
}
