import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref } from './columns.js';
import { organizations } from './organizations.js';
import { users } from './users.js';

// A partner's referral link. The partner is a user; the link lives in the organization the partner
// made it in (tenant boundary), and its code is the public part of the tracking URL.
export const partnerLinks = pgTable(
  'partner_links',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    partnerId: ref('partner_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    code: text('code').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('partner_links_code_key').on(t.code),
    index('partner_links_partner_idx').on(t.partnerId, t.organizationId),
    check('partner_links_code_check', sql`${t.code} ~ '^[A-Za-z0-9_-]{8,64}$'`),
  ],
);

// One row per followed link (the click series); organization_id is the link's.
export const partnerLinkVisits = pgTable(
  'partner_link_visits',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    linkId: ref('link_id').notNull().references(() => partnerLinks.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [index('partner_link_visits_link_time_idx').on(t.linkId, t.createdAt)],
);

// A registration attributed to a link. organization_id is the link's (the partner's side);
// referred_organization_id is the organization the registration created, null when the new user
// joined an existing organization by invitation (nothing for the partner to be paid on).
export const partnerReferrals = pgTable(
  'partner_referrals',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    linkId: ref('link_id').notNull().references(() => partnerLinks.id, { onDelete: 'cascade' }),
    referredUserId: ref('referred_user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    referredOrganizationId: ref('referred_organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('partner_referrals_user_key').on(t.referredUserId),
    uniqueIndex('partner_referrals_organization_key').on(t.referredOrganizationId),
    index('partner_referrals_link_time_idx').on(t.linkId, t.createdAt),
  ],
);
