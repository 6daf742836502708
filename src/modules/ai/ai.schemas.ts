import { Type, type Static } from 'typebox';
import { DateTime, Id, Nullable } from '../../platform/schemas.js';
import { Paging } from '../../platform/http.js';

// routes.md "AI assistant" and its resource forms (AiDocumentIndex, IndexingJob, AiAnswer, LlmSettings).

const Provider = Type.Union([Type.Literal('openai-compatible'), Type.Literal('anthropic'), Type.Literal('ollama')], {
  description: 'openai-compatible (Chat Completions, Embeddings, Models: OpenAI, vLLM, LM Studio, Ollama /v1 …), anthropic (Messages API), ollama (native API)',
});
const SourceType = Type.Union([Type.Literal('page'), Type.Literal('reglament'), Type.Literal('project-documentation')]);
const ModelName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const BaseUrl = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: 'the provider API root (https://api.openai.com/v1, https://api.anthropic.com, http://ollama:11434); https and a public address unless on OUTBOUND_ALLOWED_HOSTS',
});
const ApiKey = Type.String({ minLength: 1, maxLength: 1000, description: 'write-only; stored encrypted' });
const Temperature = Type.Number({ minimum: 0, maximum: 2 });
const MaxTokens = Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'largest answer, in tokens' });

export const LlmSettingsSchema = Type.Object(
  {
    provider: Provider,
    baseUrl: Type.String(),
    apiKeySet: Type.Boolean({ description: 'whether a key is stored (the key itself is never shown)' }),
    apiKeyLast4: Nullable(Type.String({ description: 'the last four characters of the stored key (null when none, or when it is shorter than 8)' })),
    model: Type.String(),
    embeddingModel: Nullable(Type.String({ description: 'model for vectors; null = full-text ranking only' })),
    temperature: Type.Number(),
    maxTokens: Nullable(Type.Integer()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'LlmSettings' },
);
export type LlmSettingsDto = Static<typeof LlmSettingsSchema>;

export const PutLlmSettingsBody = Type.Object(
  {
    provider: Provider,
    baseUrl: BaseUrl,
    apiKey: Type.Optional(Nullable(ApiKey)),
    model: ModelName,
    temperature: Type.Optional(Temperature),
    maxTokens: Type.Optional(Nullable(MaxTokens)),
    embeddingModel: Type.Optional(Nullable(ModelName)),
  },
  { additionalProperties: false },
);
export type PutLlmSettingsInput = Static<typeof PutLlmSettingsBody>;

export const PatchLlmSettingsBody = Type.Object(
  {
    provider: Type.Optional(Provider),
    baseUrl: Type.Optional(BaseUrl),
    apiKey: Type.Optional(Nullable(ApiKey)),
    model: Type.Optional(ModelName),
    temperature: Type.Optional(Temperature),
    maxTokens: Type.Optional(Nullable(MaxTokens)),
    embeddingModel: Type.Optional(Nullable(ModelName)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchLlmSettingsInput = Static<typeof PatchLlmSettingsBody>;

export const ModelSchema = Type.Object(
  { id: Type.String(), name: Type.String(), contextWindow: Nullable(Type.Integer({ description: 'tokens, when the provider says' })) },
  { $id: 'AiModel' },
);

export const AiDocumentSchema = Type.Object(
  {
    id: Type.Integer(),
    sourceType: SourceType,
    sourceId: Type.Integer(),
    spaceId: Type.Integer(),
    title: Type.String(),
    chunks: Type.Integer(),
    contentHash: Type.String({ description: 'SHA-256 of the indexed title and text' }),
    status: Type.Union([Type.Literal('indexed'), Type.Literal('stale'), Type.Literal('failed')], {
      description: 'stale: the source changed since it was indexed (or is gone: the next job drops it)',
    }),
    indexedAt: DateTime(),
    createdAt: DateTime(),
  },
  { $id: 'AiDocumentIndex' },
);

export const ListDocumentsQuery = Type.Object({
  ...Paging().properties,
  spaceId: Type.Optional(Id('only this space')),
  sourceType: Type.Optional(SourceType),
  status: Type.Optional(Type.Union([Type.Literal('indexed'), Type.Literal('stale'), Type.Literal('failed')])),
});

export const UnindexedQuery = Type.Object({ spaceId: Type.Optional(Id('only this space')) });
export const UnindexedSchema = Type.Object({
  count: Type.Integer({ description: 'sources not indexed yet (all of them, even past the 500 listed)' }),
  documents: Type.Array(Type.Object({ sourceType: SourceType, sourceId: Type.Integer(), spaceId: Type.Integer(), title: Type.String(), updatedAt: DateTime() }), {
    description: 'the first 500, most recently updated first',
  }),
});

export const IndexingJobSchema = Type.Object(
  {
    id: Type.Integer(),
    spaceId: Type.Integer(),
    status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
    full: Type.Boolean(),
    total: Type.Integer({ description: 'sources the job looks at' }),
    processed: Type.Integer({ description: 'sources done so far (indexed, unchanged, removed or failed)' }),
    failed: Type.Integer(),
    finishedAt: Nullable(DateTime()),
    error: Nullable(Type.String()),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'IndexingJob' },
);
export type IndexingJobDto = Static<typeof IndexingJobSchema>;

export const JobParams = Type.Object({ jobId: Id() });
export const CreateJobBody = Type.Object(
  { spaceId: Id('the space to index'), full: Type.Optional(Type.Boolean({ default: false, description: 'false: only sources changed since indexed' })) },
  { additionalProperties: false },
);

export const AskBody = Type.Object(
  {
    question: Type.String({ minLength: 1, maxLength: 8000, pattern: '\\S' }),
    spaceId: Type.Optional(Nullable(Id('ask this space only'))),
    conversationId: Type.Optional(Nullable(Id('continue this conversation of yours'))),
    stream: Type.Optional(Type.Boolean({ description: 'answer text/event-stream: delta events, then one done with the AiAnswer' })),
  },
  { additionalProperties: false },
);
export type AskInput = Static<typeof AskBody>;

export const AiSourceSchema = Type.Object({
  sourceType: SourceType,
  sourceId: Type.Integer(),
  title: Type.String(),
  url: Type.String({ description: 'the source in this API' }),
  score: Type.Number({ description: 'relevance, 0–1, highest first' }),
});
export type AiSource = Static<typeof AiSourceSchema>;

export const AiAnswerSchema = Type.Object(
  {
    answer: Type.String(),
    sources: Type.Array(AiSourceSchema),
    conversationId: Type.Integer(),
    model: Nullable(Type.String({ description: 'null: an extractive answer (quoted passages), no model involved' })),
    usage: Type.Object({ promptTokens: Type.Integer(), completionTokens: Type.Integer() }),
  },
  { $id: 'AiAnswer' },
);
export type AiAnswer = Static<typeof AiAnswerSchema>;
