import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt } from './columns.js';
import { organizations } from './organizations.js';
import { taskMessages } from './tasks.js';
import { users } from './users.js';

/**
 * A user's own cloud drive (routes.md "Cloud-drive integration"): one per person, whichever
 * organization they act in, like the personal messenger. Both tokens are stored encrypted
 * (platform/secrets.ts, bound to the row's user), never in plain text. `disconnected` keeps the row
 * after the provider refused the refresh token, so the status can say why the drive went away.
 */
export const cloudDriveIntegrations = pgTable(
  'cloud_drive_integrations',
  {
    id: id(),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['connected', 'disconnected'] }).notNull().default('connected'),
    accountEmail: text('account_email'),
    scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
    accessTokenEncrypted: text('access_token_encrypted'),
    refreshTokenEncrypted: text('refresh_token_encrypted'),
    // When the access token was issued and when it expires: the refresh margin is a share of the span.
    accessIssuedAt: ts('access_issued_at'),
    accessExpiresAt: ts('access_expires_at'),
    connectedAt: ts('connected_at').notNull().defaultNow(),
    disconnectedAt: ts('disconnected_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('cloud_drive_integrations_user_key').on(t.userId),
    check('cloud_drive_integrations_status_check', sql`${t.status} in ('connected','disconnected')`),
  ],
);

/**
 * An authorization in progress: the state's nonce, its user, the PKCE verifier (encrypted, never
 * sent to the browser) and where the browser goes afterwards (`redirect_uri`: a page of the app,
 * checked against APP_URL's origin). Deleted when the callback takes it, so a state is good once;
 * expired rows are ignored and swept on the next authorization.
 */
export const cloudDriveAuthStates = pgTable(
  'cloud_drive_auth_states',
  {
    nonce: text('nonce').primaryKey(),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    codeVerifierEncrypted: text('code_verifier_encrypted').notNull(),
    redirectUri: text('redirect_uri').notNull(),
    expiresAt: ts('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('cloud_drive_auth_states_expires_idx').on(t.expiresAt)],
);

/**
 * Drive files attached to a task message: references only (the file stays in its owner's drive),
 * with the name, type, size and link read from the drive when attached, so every reader of the task
 * sees them without anyone's token.
 */
export const messageDriveAttachments = pgTable(
  'message_drive_attachments',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    messageId: ref('message_id').notNull().references(() => taskMessages.id, { onDelete: 'cascade' }),
    driveFileId: text('drive_file_id').notNull(),
    name: text('name').notNull(),
    mimeType: text('mime_type').notNull(),
    size: bigint('size', { mode: 'number' }).notNull().default(0),
    webUrl: text('web_url').notNull(),
    attachedById: ref('attached_by_id').references(() => users.id, { onDelete: 'set null' }),
    position: integer('position').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('message_drive_attachments_message_file_key').on(t.messageId, t.driveFileId),
    check('message_drive_attachments_file_id_check', sql`char_length(${t.driveFileId}) between 1 and 200`),
  ],
);
