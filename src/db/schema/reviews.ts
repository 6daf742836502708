import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ref } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

export const reviews = pgTable(
  'reviews',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: ref('user_id').references(() => users.id, { onDelete: 'set null' }),
    rating: integer('rating').notNull(),
    text: text('text').notNull(),
    category: text('category', { enum: ['bug', 'idea', 'praise', 'other'] }).notNull().default('other'),
    page: text('page'),
    createdAt: createdAt(),
  },
  (t) => [index('reviews_created_idx').on(t.createdAt), check('reviews_rating_check', sql`${t.rating} between 1 and 5`)],
);
