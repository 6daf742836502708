import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import { joinHooks } from '../auth/auth.hooks.js';
import * as S from './partners.schemas.js';
import * as partners from './partners.service.js';
import * as stats from './partners.statistics.js';

const tags = ['Partner programme'];
const periodNote = 'totals and points count clicks and registrations when they happened, and paying organizations at the time they were referred (UTC)';

export default async function partnerRoutes(app: App): Promise<void> {
  // Registration credits partner links through this hook, so auth never imports this module.
  joinHooks.attributeReferral = partners.attributeReferral;
  const publicUrl = app.config.publicUrl;

  app.get(
    '/partner-program/statistics/year',
    {
      schema: {
        tags,
        summary: "The caller's partner statistics for a year, 12 monthly points (spec: Authorization: Bearer; the session header works too)",
        description: periodNote,
        'x-developing': true,
        querystring: S.YearQuery,
        response: { 200: S.PartnerStatisticsSchema },
      },
    },
    (request) => read(app, request, (ctx) => stats.yearStatistics(ctx, request.query)),
  );

  app.get(
    '/partner-program/statistics/month',
    { schema: { tags, summary: "The caller's partner statistics for a month, daily points", description: periodNote, querystring: S.MonthQuery, response: { 200: S.PartnerStatisticsSchema } } },
    (request) => read(app, request, (ctx) => stats.monthStatistics(ctx, request.query)),
  );

  app.get(
    '/partner-program/statistics/week',
    { schema: { tags, summary: "The caller's partner statistics for an ISO week, 7 daily points", description: periodNote, querystring: S.WeekQuery, response: { 200: S.PartnerStatisticsSchema } } },
    (request) => read(app, request, (ctx) => stats.weekStatistics(ctx, request.query)),
  );

  app.get(
    '/partner-program/links',
    { schema: { tags, summary: "The caller's partner links with their click counts", querystring: S.LinksQuery, response: { 200: Type.Array(S.PartnerLinkSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => partners.listLinks(ctx, publicUrl, page));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.post(
    '/partner-program/links',
    { schema: { tags, summary: 'Create a partner link (joins the programme)', body: S.CreateLinkBody, response: { 201: S.PartnerLinkSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => partners.createLink(ctx, publicUrl, request.body.name))),
  );

  // Credential-free like the other /public/ reads: whoever follows a partner's link is not signed in.
  app.get(
    '/public/partner-links/:code',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Follow a partner link: counts a click, then redirects (302) to the service with ?ref=<code> for registration',
        params: S.CodeParams,
        response: { 302: Type.Null({ description: 'redirect; Location is PUBLIC_URL/?ref=<code>' }) },
      },
    },
    async (request, reply) => {
      const { code } = request.params;
      if (!(await partners.recordClick(app.database.db, code))) throw notFound('partner link');
      return reply.header('cache-control', 'no-store').redirect(`${publicUrl}/?ref=${encodeURIComponent(code)}`, 302);
    },
  );
}
