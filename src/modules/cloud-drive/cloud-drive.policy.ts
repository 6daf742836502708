import type { Config } from '../../config.js';
import { AppError } from '../../platform/errors.js';

/**
 * routes.md "Cloud-drive integration": the integration is its user's alone (`self`), so every
 * drive route acts on the caller's own row and no id of another user's integration exists in the
 * API to be tried. Task chat rules (S:reader sends, the author edits) are the messages policy's.
 */

export interface IntegrationState {
  status: 'connected' | 'disconnected';
}

/** Both OAuth client settings present, or 409 before anything else is looked at. */
export function requireConfigured(config: Config): { clientId: string; clientSecret: string } {
  if (!config.cloudDriveClientId || !config.cloudDriveClientSecret) {
    throw new AppError('CLOUD_DRIVE_NOT_CONFIGURED', 'the cloud drive is not configured on this service (CLOUD_DRIVE_CLIENT_ID and CLOUD_DRIVE_CLIENT_SECRET)');
  }
  return { clientId: config.cloudDriveClientId, clientSecret: config.cloudDriveClientSecret };
}

/** The caller's drive may be used: connected, not merely remembered after the provider refused it. */
export function requireUsable<T extends IntegrationState>(row: T | undefined): T {
  if (!row) throw new AppError('CLOUD_DRIVE_NOT_CONNECTED', 'connect a cloud drive first (GET /integrations/cloud-drive/authorization-url)');
  if (row.status !== 'connected') throw reconnect();
  return row;
}

export const reconnect = () => new AppError('CLOUD_DRIVE_RECONNECT', 'the cloud drive refused the stored authorization: connect it again');

/**
 * Where the browser may be sent after the callback: the web app (APP_URL) or this service's own
 * origin. Anything else would make the callback an open redirect.
 */
export function allowedReturnUrl(config: Config, raw: string | undefined): string {
  if (raw === undefined) return config.appUrl;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'redirectUri must be an absolute URL', [{ path: '/redirectUri', message: 'must be an absolute URL' }]);
  }
  const origins = new Set([new URL(config.appUrl).origin, new URL(config.publicUrl).origin]);
  if (!origins.has(url.origin)) {
    throw new AppError('VALIDATION_FAILED', 'redirectUri must be on the app’s origin (APP_URL)', [{ path: '/redirectUri', message: 'must be on the app’s origin' }]);
  }
  return url.href;
}
