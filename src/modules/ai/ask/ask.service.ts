import { and, desc, eq } from 'drizzle-orm';
import { aiConversations, aiMessages } from '../../../db/schema/ai.js';
import { readableSpaceIds, spaceRoleOf } from '../../../platform/access.js';
import type { Ctx } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors.js';
import { spaceIdsAllowing } from '../../reglaments/reglaments.policy.js';
import { authorizeAi, requireAiEnabled } from '../ai.policy.js';
import type { AiAnswer, AiSource, AskInput } from '../ai.schemas.js';
import type { ChatMessage } from '../providers/clients.js';
import { configuredModel, recordUsage, type AiDeps, type ConfiguredModel } from '../settings.service.js';
import { buildMessages, SYSTEM_PROMPT, type NumberedPassage } from './prompt.js';
import { retrievePassages } from './retrieval.js';

/** Passages given to a model, and quoted by an extractive answer. */
const PASSAGES_FOR_MODEL = 6;
const PASSAGES_QUOTED = 3;
const SOURCES_LISTED = 5;
/** Earlier turns of the conversation sent along (user and assistant messages). */
const HISTORY_TURNS = 10;
const QUOTE_CHARS = 600;

export const NOTHING_FOUND = 'The documents you can read do not answer this question.';

/** Everything decided before any text is produced: who may read what, the passages, the model. */
export interface PreparedAsk {
  question: string;
  conversationId: number | null;
  history: ChatMessage[];
  passages: NumberedPassage[];
  sources: AiSource[];
  model: ConfiguredModel | null;
}

function sourceUrl(publicUrl: string, p: { sourceType: string; sourceId: number }): string {
  if (p.sourceType === 'page') return `${publicUrl}/pages/${p.sourceId}`;
  if (p.sourceType === 'reglament') return `${publicUrl}/reglaments/${p.sourceId}`;
  return `${publicUrl}/projects/${p.sourceId}/documentation`;
}

/**
 * The read half of asking: checks (AI on, the space and conversation are the caller's to read),
 * then retrieval restricted to what the caller may read now. Errors here answer as problems,
 * before a stream starts.
 */
export async function prepareAsk(ctx: Ctx, input: AskInput, deps: AiDeps): Promise<PreparedAsk> {
  authorizeAi(ctx.actor, 'ask');
  const org = ctx.actor.organizationId;
  // 404 before 403: what the caller cannot see is not there, switch or no switch.
  if (input.spaceId && (await spaceRoleOf(ctx.db, ctx.actor, input.spaceId)) === null) throw notFound('space');
  let history: ChatMessage[] = [];
  if (input.conversationId) {
    const [conversation] = await ctx.db
      .select({ id: aiConversations.id })
      .from(aiConversations)
      .where(and(eq(aiConversations.id, input.conversationId), eq(aiConversations.organizationId, org), eq(aiConversations.userId, ctx.actor.userId)));
    if (!conversation) throw notFound('conversation');
    const turns = await ctx.db
      .select({ role: aiMessages.role, content: aiMessages.content })
      .from(aiMessages)
      .where(eq(aiMessages.conversationId, conversation.id))
      .orderBy(desc(aiMessages.id))
      .limit(HISTORY_TURNS);
    history = turns.reverse();
  }
  await requireAiEnabled(ctx.db, ctx.actor);

  const spaces = await readableSpaceIds(ctx.db, ctx.actor);
  const readable = {
    spaceIds: input.spaceId ? spaces.filter((s) => s === input.spaceId) : spaces,
    draftSpaceIds: await spaceIdsAllowing(ctx.db, ctx.actor, 'readDrafts'),
  };
  // A follow-up ("and after what?") is searched together with the question before it.
  const previous = history.filter((m) => m.role === 'user').at(-1)?.content;
  const query = previous ? `${previous}\n${input.question}` : input.question;
  const model = await configuredModel(ctx.db, org, deps);
  let queryVector: number[] | null = null;
  if (model?.embeddingModel) {
    try {
      const embedded = await model.client.embed([query]);
      queryVector = embedded.vectors[0] ?? null;
    } catch (err) {
      // Full text still answers; the vectors come back with the provider.
      deps.log?.warn({ err: (err as Error).message }, 'question embedding failed: full-text ranking only');
    }
  }
  const found = await retrievePassages(ctx.db, org, readable, query, { limit: PASSAGES_FOR_MODEL, queryVector, ...(deps.vectors ? { vectors: deps.vectors } : {}) });

  // One number per document, in order of its best passage: [n] in an answer is sources[n - 1].
  const numbers = new Map<string, number>();
  const sources: AiSource[] = [];
  const passages = found.map((p) => {
    const key = `${p.sourceType}:${p.sourceId}`;
    if (!numbers.has(key)) {
      numbers.set(key, numbers.size + 1);
      sources.push({ sourceType: p.sourceType, sourceId: p.sourceId, title: p.title, url: sourceUrl(deps.publicUrl, p), score: p.score });
    }
    return { ...p, n: numbers.get(key)! };
  });
  return { question: input.question, conversationId: input.conversationId ?? null, history, passages, sources: sources.slice(0, SOURCES_LISTED), model };
}

const clip = (text: string) => (text.length <= QUOTE_CHARS ? text : `${text.slice(0, QUOTE_CHARS).replace(/\s+\S*$/, '')} …`);

/** The answer without a model: the best passages quoted, each with its source's number. */
export function extractiveAnswer(prepared: PreparedAsk): string {
  if (prepared.passages.length === 0) return NOTHING_FOUND;
  const quotes = prepared.passages.slice(0, PASSAGES_QUOTED).map((p) => `> ${clip(p.content).replace(/\n/g, '\n> ')}\n— ${p.heading} [${p.n}]`);
  return `From your documents:\n\n${quotes.join('\n\n')}`;
}

export interface Generated {
  answer: string;
  model: string | null;
  usage: { promptTokens: number; completionTokens: number };
}

/**
 * The text half: a grounded generation when a model is configured and something was found; the
 * extractive answer otherwise (no model call for nothing to ground on). Runs outside any
 * transaction: a provider may take its time.
 */
export async function generateAnswer(prepared: PreparedAsk, onDelta?: (text: string) => void): Promise<Generated> {
  if (!prepared.model || prepared.passages.length === 0) {
    const answer = extractiveAnswer(prepared);
    onDelta?.(answer);
    return { answer, model: null, usage: { promptTokens: 0, completionTokens: 0 } };
  }
  const { client, model, temperature, maxTokens } = prepared.model;
  const result = await client.chat({
    system: SYSTEM_PROMPT,
    messages: buildMessages(prepared.history, prepared.passages, prepared.question),
    temperature,
    maxTokens,
    ...(onDelta ? { onDelta } : {}),
  });
  return { answer: result.text, model, usage: result.usage };
}

/** The write half: the turn goes into the caller's conversation (a new one when none was given), the tokens into usage. */
export async function recordAnswer(ctx: Ctx, prepared: PreparedAsk, generated: Generated): Promise<AiAnswer> {
  const org = ctx.actor.organizationId;
  let conversationId = prepared.conversationId;
  if (conversationId === null) {
    const [created] = await ctx.db
      .insert(aiConversations)
      .values({ organizationId: org, userId: ctx.actor.userId, title: prepared.question.slice(0, 200) })
      .returning({ id: aiConversations.id });
    conversationId = created!.id;
  } else {
    // Deleted meanwhile (with its user): 404 rather than a turn without a conversation.
    const touched = await ctx.db
      .update(aiConversations)
      .set({ updatedAt: new Date() })
      .where(and(eq(aiConversations.id, conversationId), eq(aiConversations.userId, ctx.actor.userId)))
      .returning({ id: aiConversations.id });
    if (touched.length === 0) throw notFound('conversation');
  }
  await ctx.db.insert(aiMessages).values([
    { organizationId: org, conversationId, role: 'user', content: prepared.question },
    { organizationId: org, conversationId, role: 'assistant', content: generated.answer, sources: prepared.sources },
  ]);
  if (generated.model) await recordUsage(ctx.db, org, generated.model, generated.usage);
  return { answer: generated.answer, sources: prepared.sources, conversationId, model: generated.model, usage: generated.usage };
}
