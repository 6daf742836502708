import { sql } from 'drizzle-orm';
import { boolean, check, date, doublePrecision, index, integer, jsonb, pgTable, primaryKey, real, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, ref, ts, updatedAt, tsvector } from './columns.js';
import { organizations } from './organizations.js';
import { spaces } from './spaces.js';
import { users } from './users.js';

export const LLM_PROVIDERS = ['openai-compatible', 'anthropic', 'ollama'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];
export const AI_SOURCE_TYPES = ['page', 'reglament', 'project-documentation'] as const;
export type AiSourceType = (typeof AI_SOURCE_TYPES)[number];
export const INDEXING_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;


// One model configuration per organization. The API key is stored encrypted (platform/secrets.ts,
// bound to the organization), never in plain text; its last four characters are kept for reads.
export const aiLlmSettings = pgTable(
  'ai_llm_settings',
  {
    organizationId: ref('organization_id').primaryKey().references(() => organizations.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: LLM_PROVIDERS }).notNull(),
    baseUrl: text('base_url').notNull(),
    apiKeyEncrypted: text('api_key_encrypted'),
    apiKeyLast4: text('api_key_last4'),
    model: text('model').notNull(),
    embeddingModel: text('embedding_model'),
    temperature: doublePrecision('temperature').notNull().default(0.2),
    maxTokens: integer('max_tokens'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('ai_llm_settings_provider_check', sql`${t.provider} in ('openai-compatible','anthropic','ollama')`),
    check('ai_llm_settings_temperature_check', sql`${t.temperature} between 0 and 2`),
    check('ai_llm_settings_max_tokens_check', sql`${t.maxTokens} is null or ${t.maxTokens} > 0`),
  ],
);

// Tokens spent per organization, model and day (the provider's own counts).
export const aiUsage = pgTable(
  'ai_usage',
  {
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    model: text('model').notNull(),
    requests: integer('requests').notNull().default(0),
    promptTokens: ref('prompt_tokens').notNull().default(0),
    completionTokens: ref('completion_tokens').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.day, t.model] })],
);

// One indexed source (a page, a reglament, a project's documentation), kept under its home space.
// The source id is not a foreign key (three tables); a source that is gone leaves the index at the
// next job of its space, and retrieval joins the live source anyway, so a deleted one never answers.
export const aiDocuments = pgTable(
  'ai_documents',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    sourceType: text('source_type', { enum: AI_SOURCE_TYPES }).notNull(),
    sourceId: ref('source_id').notNull(),
    title: text('title').notNull(),
    contentHash: text('content_hash').notNull(),
    chunks: integer('chunks').notNull().default(0),
    status: text('status', { enum: ['indexed', 'failed'] }).notNull(),
    // The model its chunks' vectors come from (null: none); another configured model means re-embedding.
    embeddingModel: text('embedding_model'),
    error: text('error'),
    indexedAt: ts('indexed_at').notNull().defaultNow(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('ai_documents_source_key').on(t.organizationId, t.sourceType, t.sourceId),
    index('ai_documents_space_idx').on(t.spaceId),
    check('ai_documents_source_type_check', sql`${t.sourceType} in ('page','reglament','project-documentation')`),
  ],
);

// Passages of a document: a few hundred tokens under their heading path, with a full-text vector
// (built by the database, so PGlite and PostgreSQL rank alike) and, when an embedding model is
// configured, a unit-length embedding (cosine = dot product).
export const aiChunks = pgTable(
  'ai_chunks',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    documentId: ref('document_id').notNull().references(() => aiDocuments.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    heading: text('heading').notNull(),
    content: text('content').notNull(),
    tsv: tsvector('tsv').generatedAlwaysAs(sql`to_tsvector('english', heading || ' ' || content)`),
    embedding: real('embedding').array(),
  },
  (t) => [index('ai_chunks_document_idx').on(t.documentId, t.position), index('ai_chunks_tsv_idx').using('gin', t.tsv)],
);

// Background indexing of one space; at most one queued or running per space (the partial unique index).
export const aiIndexingJobs = pgTable(
  'ai_indexing_jobs',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    spaceId: ref('space_id').notNull().references(() => spaces.id, { onDelete: 'cascade' }),
    status: text('status', { enum: INDEXING_STATUSES }).notNull().default('queued'),
    full: boolean('full').notNull().default(false),
    total: integer('total').notNull().default(0),
    processed: integer('processed').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    error: text('error'),
    creatorId: ref('creator_id').references(() => users.id, { onDelete: 'set null' }),
    // A running job's worker touches this as it goes; one silent for long was lost with its process.
    heartbeatAt: ts('heartbeat_at'),
    finishedAt: ts('finished_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('ai_indexing_jobs_active_key').on(t.spaceId).where(sql`${t.status} in ('queued','running')`),
    index('ai_indexing_jobs_status_idx').on(t.status),
    check('ai_indexing_jobs_status_check', sql`${t.status} in ('queued','running','succeeded','failed')`),
  ],
);

// A user's conversation with the assistant; it goes with the user.
export const aiConversations = pgTable(
  'ai_conversations',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    userId: ref('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('ai_conversations_user_idx').on(t.userId)],
);

export const aiMessages = pgTable(
  'ai_messages',
  {
    id: id(),
    organizationId: ref('organization_id').notNull().references(() => organizations.id, { onDelete: 'cascade' }),
    conversationId: ref('conversation_id').notNull().references(() => aiConversations.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    content: text('content').notNull(),
    sources: jsonb('sources').$type<unknown[]>().notNull().default([]),
    createdAt: createdAt(),
  },
  (t) => [index('ai_messages_conversation_idx').on(t.conversationId, t.id), check('ai_messages_role_check', sql`${t.role} in ('user','assistant')`)],
);
