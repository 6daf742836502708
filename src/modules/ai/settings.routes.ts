import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../platform/types.js';
import { read, write } from '../../platform/context.js';
import { allowedHostsOf } from '../../platform/outbound.js';
import { problemResponse } from '../../platform/openapi.js';
import * as S from './ai.schemas.js';
import * as settings from './settings.service.js';

export const tags = ['AI assistant'];

/** The AI use cases' view of the app (built per request, so refusals are logged with its id). */
export function aiDeps(app: App, request: FastifyRequest): settings.AiDeps {
  return {
    secrets: app.secrets,
    http: { allowedHosts: allowedHostsOf(app.config), timeoutMs: app.config.aiTimeoutMs, maxRetryAfterMs: app.config.aiMaxRetryAfterMs },
    publicUrl: app.config.publicUrl,
    log: request.log,
  };
}

const failed = problemResponse('AI_PROVIDER_FAILED: the provider failed or could not be reached (its HTTP status is named)');

export default async function llmSettingsRoutes(app: App): Promise<void> {
  app.get(
    '/ai/llm-settings',
    { schema: { tags, summary: 'The LLM settings (404 when none); the API key is never shown (organization admin)', response: { 200: S.LlmSettingsSchema } } },
    (request) => read(app, request, (ctx) => settings.getLlmSettings(ctx)),
  );

  app.put(
    '/ai/llm-settings',
    {
      schema: {
        tags,
        summary: 'Create or replace the LLM settings: 201 when new, 200 when replaced (organization admin)',
        body: S.PutLlmSettingsBody,
        response: { 200: S.LlmSettingsSchema, 201: S.LlmSettingsSchema },
      },
    },
    async (request, reply) => {
      const result = await write(app, request, (ctx) => settings.putLlmSettings(ctx, request.body, aiDeps(app, request)));
      return reply.code(result.created ? 201 : 200).send(result.settings);
    },
  );

  app.patch(
    '/ai/llm-settings',
    { schema: { tags, summary: 'Change some LLM settings (organization admin)', body: S.PatchLlmSettingsBody, response: { 200: S.LlmSettingsSchema } } },
    (request) => write(app, request, (ctx) => settings.patchLlmSettings(ctx, request.body, aiDeps(app, request))),
  );

  app.delete(
    '/ai/llm-settings',
    { schema: { tags, summary: 'Delete the LLM settings and the stored key; asking falls back to extractive answers (organization admin)', response: { 204: Type.Null() } } },
    async (request, reply) => {
      await write(app, request, (ctx) => settings.deleteLlmSettings(ctx));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/ai/llm-settings/models',
    { schema: { tags, summary: "The provider's models, asked live (organization admin)", response: { 200: Type.Array(S.ModelSchema), 502: failed } } },
    (request) => read(app, request, (ctx) => settings.listProviderModels(ctx, aiDeps(app, request))),
  );
}
