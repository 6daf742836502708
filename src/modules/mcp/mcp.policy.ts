import type { Config } from '../../config.js';
import type { Actor } from '../../platform/auth.js';
import { AppError, forbidden } from '../../platform/errors.js';

/** The organization's switch is a member-management setting, for owners and admins (conventions.md role table). */
export function authorizeSwitchChange(actor: Actor): void {
  if (actor.orgRole !== 'owner' && actor.orgRole !== 'admin') throw forbidden('organization admin role required');
}

/** What a tool, resource or prompt needs of its credential: the OAuth scopes of the protected-resource metadata. */
export type McpScope = 'tasks:read' | 'tasks:write' | 'docs:read';

/**
 * An OAuth token may use what its scopes name: tasks:read the task tools, resources and prompts,
 * docs:read the documentation, reglaments and the assistant, tasks:write the write tools. A personal
 * API token has every scope, or, created `read`, every read one. The service functions called next
 * then apply the user's own role as the HTTP routes do: an agent never does what its user cannot.
 */
export function requireScope(actor: Actor, scope: McpScope): void {
  if (actor.oauth) {
    if (!actor.oauth.scopes.includes(scope)) throw new AppError('INSUFFICIENT_SCOPE', `this token was not granted the ${scope} scope: connect the app again and allow it`);
    return;
  }
  if (scope === 'tasks:write' && actor.readOnly) throw new AppError('TOKEN_READ_ONLY', 'this token has the read scope: write tools are refused');
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * DNS rebinding: a page on another site whose name now points at this server reaches it with its
 * own Host and Origin. Host must name this service (PUBLIC_URL, a CORS origin, or loopback, which a
 * rebinding page cannot send); a browser's Origin must be this service or a CORS origin.
 */
export function rebindingRefusal(config: Pick<Config, 'publicUrl' | 'corsOrigins'>, host: string | undefined, origin: string | undefined): string | null {
  const allowedOrigins = [new URL(config.publicUrl).origin, ...config.corsOrigins];
  const hosts = new Set(allowedOrigins.filter((o) => o !== '*').map((o) => new URL(o).host));
  if (!host) return 'the Host header is required';
  const hostname = host.replace(/:\d+$/, '').toLowerCase();
  if (!hosts.has(host.toLowerCase()) && !LOOPBACK.has(hostname)) return `Host ${host} is not this service`;
  if (origin !== undefined && !config.corsOrigins.includes('*') && !allowedOrigins.includes(origin.replace(/\/$/, ''))) return `Origin ${origin} is not allowed`;
  return null;
}
