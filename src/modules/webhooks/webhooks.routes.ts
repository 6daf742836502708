import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { problemResponse } from '../../platform/openapi.js';
import { read, write } from '../../platform/context.js';
import { pageOf, setPageHeaders } from '../../platform/http.js';
import { actorOf } from '../../platform/auth.js';
import { AppError } from '../../platform/errors.js';
import * as S from './webhooks.schemas.js';
import * as hooks from './webhooks.service.js';
import { startWebhookDelivery } from './webhooks.jobs.js';
import { allowedHostsOf } from '../../platform/outbound.js';

const tags = ['Webhooks'];
const who = 'organization admin; space admin for webhooks of a space or project';

export default async function webhookRoutes(app: App): Promise<void> {
  const settings = { allowedHosts: allowedHostsOf(app.config) };
  const sender = startWebhookDelivery(app);

  app.post(
    '/webhooks',
    { schema: { tags, summary: `Create a webhook; the answer shows its secret, once (${who})`, body: S.CreateWebhookBody, response: { 201: S.CreatedWebhookSchema } } },
    async (request, reply) => reply.code(201).send(await write(app, request, (ctx) => hooks.createWebhook(ctx, request.body, { ...settings, log: request.log }))),
  );

  app.get(
    '/webhooks',
    { schema: { tags, summary: `Webhooks the caller manages (${who})`, querystring: S.ListWebhooksQuery, response: { 200: Type.Array(S.WebhookSchema) } } },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => hooks.listWebhooks(ctx, { ...page, spaceId: request.query.spaceId }));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );

  app.patch(
    '/webhooks/:webhookId',
    { schema: { tags, summary: `Update a webhook (${who})`, params: S.WebhookParams, body: S.UpdateWebhookBody, response: { 200: S.WebhookSchema } } },
    (request) => write(app, request, (ctx) => hooks.updateWebhook(ctx, request.params.webhookId, request.body, { ...settings, log: request.log })),
  );

  app.delete(
    '/webhooks/:webhookId',
    { schema: { tags, summary: `Delete a webhook and its deliveries (${who})`, params: S.WebhookParams, response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => hooks.deleteWebhook(ctx, request.params.webhookId));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhooks/:webhookId/test',
    {
      schema: {
        tags,
        summary: `Send a webhook.ping now and answer its delivery (${who})`,
        params: S.WebhookParams,
        response: { 200: S.WebhookDeliverySchema, 503: problemResponse('UNAVAILABLE: the ping could not be sent now; it stays queued') },
      },
    },
    async (request) => {
      const ping = await write(app, request, (ctx) => hooks.queuePing(ctx, request.params.webhookId));
      const delivery = ping.deliveryId ? await sender.deliverNow(actorOf(request).organizationId, ping.deliveryId) : null;
      if (!delivery) throw new AppError('UNAVAILABLE', 'the ping could not be sent now; it is queued');
      return hooks.presentDelivery(delivery);
    },
  );

  app.get(
    '/webhooks/:webhookId/deliveries',
    {
      schema: {
        tags,
        summary: `Deliveries of the last 30 days, newest first (${who})`,
        params: S.WebhookParams,
        querystring: S.ListDeliveriesQuery,
        response: { 200: Type.Array(S.WebhookDeliverySchema) },
      },
    },
    async (request, reply) => {
      const page = pageOf(request.query);
      const result = await read(app, request, (ctx) => hooks.listDeliveries(ctx, request.params.webhookId, { ...page, status: request.query.status }));
      setPageHeaders(request, reply, result.total, page);
      return result.items;
    },
  );
}
