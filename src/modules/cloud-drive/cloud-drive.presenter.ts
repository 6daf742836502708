import { iso } from '../../platform/http.js';
import type { DriveFileMeta } from './drive.client.js';
import type { CloudDriveIntegrationDto, DriveFileDto } from './cloud-drive.schemas.js';

export const FOLDER_MIME = 'application/vnd.google-apps.folder';

export interface IntegrationRow {
  userId: number;
  status: 'connected' | 'disconnected';
  accountEmail: string | null;
  scopes: string[];
  connectedAt: Date | string | null;
}

export const INTEGRATION_COLUMNS = `user_id as "userId", status, account_email as "accountEmail", scopes, connected_at as "connectedAt"`;

/** The status form: never a token, not even a part of one. */
export function presentIntegration(row: IntegrationRow | undefined): CloudDriveIntegrationDto {
  if (!row) return { connected: false, accountEmail: null, connectedAt: null, scopes: [] };
  const connected = row.status === 'connected';
  return { connected, accountEmail: row.accountEmail, connectedAt: connected ? iso(row.connectedAt) : null, scopes: connected ? row.scopes : [] };
}

export function presentDriveFile(f: DriveFileMeta): DriveFileDto {
  const size = f.size === undefined ? null : Number(f.size);
  return {
    id: f.id,
    name: f.name,
    mimeType: f.mimeType,
    size: size !== null && Number.isSafeInteger(size) && size >= 0 ? size : null,
    isFolder: f.mimeType === FOLDER_MIME,
    modifiedAt: f.modifiedTime ? iso(f.modifiedTime) : null,
    webUrl: f.webViewLink ?? null,
  };
}

/**
 * `attachment` always (the content is the drive owner's, of any type), with an ASCII fallback name
 * and the real one in RFC 5987 form, so no name can break out of the header.
 */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\;]/g, '_').slice(0, 150) || 'file';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/** The provider's type when it is a well-formed media type, else bytes. */
export function safeContentType(raw: string | null): string {
  const type = (raw ?? '').split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(type) ? type : 'application/octet-stream';
}
