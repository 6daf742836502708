import type { ConnectedAppDto } from './oauth.schemas.js';
import { MCP_SCOPES, mcpResource, type OAuthScope } from './oauth.policy.js';

export interface GrantRow {
  id: string;
  payload: unknown;
  organizationId: number | null;
  organizationName: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  client: Record<string, unknown> | null;
}

/** Only the scopes this service knows, in their usual order (a stored string may hold others). */
export const knownScopes = (scope: unknown): OAuthScope[] => {
  const asked = new Set(typeof scope === 'string' ? scope.split(' ') : []);
  return MCP_SCOPES.filter((s) => asked.has(s));
};

const hostOf = (uri: unknown) => {
  try {
    return new URL(String(uri)).host || String(uri);
  } catch {
    return String(uri);
  }
};

/** A registered client as people should see it: its self-chosen name, and where its codes go. */
export function presentClient(clientId: string, metadata: Record<string, unknown> | null): ConnectedAppDto['client'] {
  const uris = Array.isArray(metadata?.redirect_uris) ? metadata.redirect_uris : [];
  const name = typeof metadata?.client_name === 'string' && metadata.client_name.trim() ? metadata.client_name.trim().slice(0, 200) : clientId;
  return { id: clientId, name, redirectHosts: [...new Set(uris.map(hostOf))] };
}

export function presentConnectedApp(row: GrantRow, publicUrl: string): ConnectedAppDto {
  const payload = row.payload as { clientId?: string; resources?: Record<string, string> };
  return {
    id: row.id,
    client: presentClient(String(payload.clientId ?? ''), row.client),
    scopes: knownScopes(payload.resources?.[mcpResource(publicUrl)]),
    organization: { id: Number(row.organizationId), name: row.organizationName ?? '' },
    grantedAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
  };
}
