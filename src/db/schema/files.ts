import { bigint, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, id, ref } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

// Stored uploads. organization_id is null only for a user's own avatar (users span organizations).
export const files = pgTable(
  'files',
  {
    id: id(),
    organizationId: ref('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    uploaderId: ref('uploader_id').references(() => users.id, { onDelete: 'set null' }),
    // Random key used both as the storage file name and in download links, so links are unguessable.
    key: uuid('key').notNull().defaultRandom(),
    // What the file belongs to (avatar, organization-avatar, cover, attachment, ...): decides who may read it.
    purpose: text('purpose').notNull(),
    spaceId: ref('space_id'),
    name: text('name').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    mimeType: text('mime_type').notNull(),
    width: bigint('width', { mode: 'number' }),
    height: bigint('height', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('files_key_key').on(t.key), index('files_org_idx').on(t.organizationId)],
);
