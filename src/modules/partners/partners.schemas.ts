import { Type, type Static } from 'typebox';
import { DateOnly, DateTime, Id, Name, Nullable } from '../../platform/schemas.js';
import { Offset } from '../../platform/http.js';

export const PartnerLinkSchema = Type.Object(
  {
    id: Type.Integer(),
    partnerId: Type.Integer({ description: 'the user in the programme who owns the link' }),
    name: Type.String(),
    code: Type.String({ description: 'the public part of the link; pass it as referralCode when registering' }),
    url: Type.String({ description: 'tracking address: counts a click, then redirects to the service with ?ref=code' }),
    clicks: Type.Integer({ description: 'followed links, all time' }),
    createdAt: DateTime(),
  },
  { $id: 'PartnerLink' },
);
export type PartnerLinkDto = Static<typeof PartnerLinkSchema>;

const Figures = {
  clicks: Type.Integer(),
  registrations: Type.Integer({ description: 'users who registered with one of the links' }),
  paidOrganizations: Type.Integer({ description: 'organizations those registrations created whose subscription is active now' }),
  revenue: Type.Number({ description: 'sum of the active subscription prices of those organizations' }),
  commission: Type.Number({ description: "the partner's share of the revenue" }),
};

export const PartnerStatisticsSchema = Type.Object(
  {
    period: Type.Union([Type.Literal('year'), Type.Literal('month'), Type.Literal('week')]),
    from: DateTime('start of the period (UTC, inclusive)'),
    to: DateTime('end of the period (UTC, exclusive)'),
    partnerId: Type.Integer(),
    linkId: Nullable(Type.Integer({ description: 'the one link counted, or null for all the partner’s links' })),
    currency: Type.String({ description: 'ISO 4217 code of revenue and commission' }),
    totals: Type.Object(Figures),
    points: Type.Array(Type.Object({ from: DateTime('start of the point (UTC)'), ...Figures }), {
      description: 'year: 12 months; month: one per day; week: 7 days, Monday first',
    }),
  },
  { $id: 'PartnerStatistics' },
);
export type PartnerStatisticsDto = Static<typeof PartnerStatisticsSchema>;

const Scope = {
  linkId: Type.Optional(Id('only this link (one of the caller’s)')),
  partnerId: Type.Optional(Id('the partner; defaults to the caller, and another partner’s id answers 404')),
};
export const YearQuery = Type.Object({ ...Scope, year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 9999, description: 'default: the current UTC year' })) });
export const MonthQuery = Type.Object({
  ...Scope,
  year: Type.Optional(Type.Integer({ minimum: 2000, maximum: 9999, description: 'default: the current UTC year' })),
  month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: '1-12; default: the current UTC month' })),
});
export const WeekQuery = Type.Object({ ...Scope, date: Type.Optional(DateOnly('any day of the ISO week; default: today (UTC)')) });

export const LinksQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50, description: 'page size (default 50, max 500)' })),
  offset: Offset(),
});
export const CreateLinkBody = Type.Object({ name: Name() });
export const CodeParams = Type.Object({ code: Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$' }) });
