import { eq, sql } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { aiLlmSettings, aiUsage } from '../../db/schema/ai.js';
import type { Ctx } from '../../platform/context.js';
import { AppError, notFound } from '../../platform/errors.js';
import { assertOutboundUrl, type RefusalLog } from '../../platform/outbound.js';
import { last4, type SecretBox } from '../../platform/secrets.js';
import { authorizeAi } from './ai.policy.js';
import { presentSettings, type LlmSettingsRow } from './ai.presenter.js';
import type { PatchLlmSettingsInput, PutLlmSettingsInput } from './ai.schemas.js';
import { llmClient, type LlmClient } from './providers/clients.js';
import { LLM_SUBJECT, type ProviderHttpOptions } from './providers/http.js';
import type { VectorIndex } from './ask/vector-index.js';

/** What the AI use cases need from the app: the key box and how to call providers. */
export interface AiDeps {
  secrets: SecretBox;
  http: ProviderHttpOptions;
  publicUrl: string;
  log?: RefusalLog;
  /** The in-memory vector ranking (asking only). */
  vectors?: VectorIndex;
}

/** The key is bound to its organization: a ciphertext copied to another organization's row does not decrypt. */
const keyContext = (organizationId: number) => `ai.llm-settings.api-key:${organizationId}`;

async function settingsRow(db: Queryable, organizationId: number, lock = false): Promise<LlmSettingsRow | null> {
  const query = db.select().from(aiLlmSettings).where(eq(aiLlmSettings.organizationId, organizationId));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

async function checkedBaseUrl(raw: string, deps: AiDeps): Promise<string> {
  const url = await assertOutboundUrl(raw, deps.http.allowedHosts, { subject: LLM_SUBJECT, field: 'baseUrl', ...(deps.log ? { log: deps.log } : {}) });
  return url.href.replace(/\/+$/, '');
}

function assertCombination(provider: string, embeddingModel: string | null | undefined): void {
  if (provider === 'anthropic' && embeddingModel) {
    throw new AppError('VALIDATION_FAILED', 'anthropic has no embeddings API: embeddingModel must be null (or use an openai-compatible or ollama provider)', [
      { path: '/embeddingModel', message: 'not available with anthropic' },
    ]);
  }
}

function encryptedKey(apiKey: string, organizationId: number, deps: AiDeps) {
  return { apiKeyEncrypted: deps.secrets.encrypt(apiKey, keyContext(organizationId)), apiKeyLast4: last4(apiKey) || null };
}

export async function getLlmSettings(ctx: Ctx) {
  authorizeAi(ctx.actor, 'manageSettings');
  const row = await settingsRow(ctx.db, ctx.actor.organizationId);
  if (!row) throw notFound('LLM settings');
  return presentSettings(row);
}

/** PUT: the whole configuration; no apiKey means none (a local server). Answers whether it was new. */
export async function putLlmSettings(ctx: Ctx, input: PutLlmSettingsInput, deps: AiDeps) {
  authorizeAi(ctx.actor, 'manageSettings');
  const org = ctx.actor.organizationId;
  assertCombination(input.provider, input.embeddingModel);
  const baseUrl = await checkedBaseUrl(input.baseUrl, deps);
  const key = input.apiKey ? encryptedKey(input.apiKey, org, deps) : { apiKeyEncrypted: null, apiKeyLast4: null };
  const existing = await settingsRow(ctx.db, org, true);
  const values = {
    provider: input.provider,
    baseUrl,
    ...key,
    model: input.model,
    embeddingModel: input.embeddingModel ?? null,
    temperature: input.temperature ?? 0.2,
    maxTokens: input.maxTokens ?? null,
  };
  const [row] = existing
    ? await ctx.db.update(aiLlmSettings).set({ ...values, updatedAt: new Date() }).where(eq(aiLlmSettings.organizationId, org)).returning()
    : await ctx.db.insert(aiLlmSettings).values({ organizationId: org, ...values }).returning();
  return { created: !existing, settings: presentSettings(row!) };
}

/**
 * PATCH: the fields given. A stored key is kept unless `apiKey` is given (a new one) or null
 * (removed); but it is never sent to a new host without being given again, so moving baseUrl to
 * another host with a stored key needs the key in the same request.
 */
export async function patchLlmSettings(ctx: Ctx, input: PatchLlmSettingsInput, deps: AiDeps) {
  authorizeAi(ctx.actor, 'manageSettings');
  const org = ctx.actor.organizationId;
  const current = await settingsRow(ctx.db, org, true);
  if (!current) throw notFound('LLM settings');
  const provider = input.provider ?? current.provider;
  const embeddingModel = input.embeddingModel === undefined ? current.embeddingModel : input.embeddingModel;
  assertCombination(provider, embeddingModel);
  const baseUrl = input.baseUrl === undefined ? undefined : await checkedBaseUrl(input.baseUrl, deps);
  if (baseUrl && input.apiKey === undefined && current.apiKeyEncrypted && new URL(baseUrl).host !== new URL(current.baseUrl).host) {
    throw new AppError('VALIDATION_FAILED', 'give apiKey again (or null) when baseUrl moves to another host: the stored key is never sent to a new host', [
      { path: '/apiKey', message: 'required when baseUrl changes host' },
    ]);
  }
  const key = input.apiKey === undefined ? {} : input.apiKey === null ? { apiKeyEncrypted: null, apiKeyLast4: null } : encryptedKey(input.apiKey, org, deps);
  const [row] = await ctx.db
    .update(aiLlmSettings)
    .set({
      ...(input.provider !== undefined ? { provider: input.provider } : {}),
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      ...key,
      ...(input.model !== undefined ? { model: input.model } : {}),
      ...(input.embeddingModel !== undefined ? { embeddingModel: input.embeddingModel } : {}),
      ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
      ...(input.maxTokens !== undefined ? { maxTokens: input.maxTokens } : {}),
      updatedAt: new Date(),
    })
    .where(eq(aiLlmSettings.organizationId, org))
    .returning();
  return presentSettings(row!);
}

export async function deleteLlmSettings(ctx: Ctx): Promise<void> {
  authorizeAi(ctx.actor, 'manageSettings');
  const deleted = await ctx.db.delete(aiLlmSettings).where(eq(aiLlmSettings.organizationId, ctx.actor.organizationId)).returning({ org: aiLlmSettings.organizationId });
  if (deleted.length === 0) throw notFound('LLM settings');
}

export interface ConfiguredModel {
  client: LlmClient;
  model: string;
  embeddingModel: string | null;
  temperature: number;
  maxTokens: number | null;
}

/** The organization's model client, or null when none is configured (the assistant then answers extractively). */
export async function configuredModel(db: Queryable, organizationId: number, deps: AiDeps): Promise<ConfiguredModel | null> {
  const row = await settingsRow(db, organizationId);
  if (!row) return null;
  const apiKey = row.apiKeyEncrypted ? decryptedKey(row.apiKeyEncrypted, organizationId, deps) : null;
  const client = llmClient({ provider: row.provider, baseUrl: row.baseUrl, apiKey, model: row.model, embeddingModel: row.embeddingModel }, { ...deps.http, ...(deps.log ? { log: deps.log } : {}) });
  return { client, model: row.model, embeddingModel: row.embeddingModel, temperature: row.temperature, maxTokens: row.maxTokens };
}

function decryptedKey(stored: string, organizationId: number, deps: AiDeps): string {
  if (!deps.secrets.available) return deps.secrets.decrypt(stored, keyContext(organizationId)); // answers SECRETS_KEY_MISSING
  try {
    return deps.secrets.decrypt(stored, keyContext(organizationId));
  } catch {
    // SECRETS_KEY changed since the key was saved: say what to do rather than fail with a 500.
    throw new AppError('CONFLICT', 'the stored API key was saved under another SECRETS_KEY and cannot be read: save apiKey again (PATCH /ai/llm-settings)');
  }
}

export async function listProviderModels(ctx: Ctx, deps: AiDeps) {
  authorizeAi(ctx.actor, 'manageSettings');
  const configured = await configuredModel(ctx.db, ctx.actor.organizationId, deps);
  if (!configured) throw notFound('LLM settings');
  return configured.client.models();
}

/** Adds a call's tokens to the organization's usage of the day (the provider's own counts). */
export async function recordUsage(db: Queryable, organizationId: number, model: string, usage: { promptTokens: number; completionTokens: number }): Promise<void> {
  await db
    .insert(aiUsage)
    .values({ organizationId, day: sql`current_date`, model, requests: 1, promptTokens: usage.promptTokens, completionTokens: usage.completionTokens })
    .onConflictDoUpdate({
      target: [aiUsage.organizationId, aiUsage.day, aiUsage.model],
      set: {
        requests: sql`${aiUsage.requests} + 1`,
        promptTokens: sql`${aiUsage.promptTokens} + ${usage.promptTokens}`,
        completionTokens: sql`${aiUsage.completionTokens} + ${usage.completionTokens}`,
      },
    });
}
