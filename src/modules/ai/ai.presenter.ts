import type { aiDocuments, aiIndexingJobs, aiLlmSettings } from '../../db/schema/ai.js';
import { iso } from '../../platform/http.js';
import type { IndexingJobDto, LlmSettingsDto } from './ai.schemas.js';

export type LlmSettingsRow = typeof aiLlmSettings.$inferSelect;
export type IndexingJobRow = typeof aiIndexingJobs.$inferSelect;
export type AiDocumentRow = typeof aiDocuments.$inferSelect;

/** The key never leaves: only whether one is set and its last four characters. */
export function presentSettings(row: LlmSettingsRow): LlmSettingsDto {
  return {
    provider: row.provider,
    baseUrl: row.baseUrl,
    apiKeySet: row.apiKeyEncrypted !== null,
    apiKeyLast4: row.apiKeyEncrypted !== null && row.apiKeyLast4 ? row.apiKeyLast4 : null,
    model: row.model,
    embeddingModel: row.embeddingModel,
    temperature: row.temperature,
    maxTokens: row.maxTokens,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export function presentJob(row: IndexingJobRow): IndexingJobDto {
  return {
    id: row.id,
    spaceId: row.spaceId,
    status: row.status,
    full: row.full,
    total: row.total,
    processed: row.processed,
    failed: row.failed,
    finishedAt: iso(row.finishedAt),
    error: row.error,
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}
