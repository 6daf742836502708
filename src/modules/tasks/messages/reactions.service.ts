import { sql } from 'drizzle-orm';
import type { Ctx } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { queryRows } from '../../../db/client.js';
import { authorizeMessage } from './messages.policy.js';
import { emitMessage } from './messages.service.js';
import { loadMessages } from './messages.presenter.js';
import type { MessageDto } from './messages.schemas.js';

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
// Every code point of an emoji sequence: pictographs, and the parts sequences are built from
// (skin tones, ZWJ, variation selector, keycap, regional indicators, tag characters).
const EMOJI_PARTS = /^[\p{Extended_Pictographic}\p{Emoji_Component}]+$/u;
// …and at least one part that is an emoji by itself, so "1" or "#" alone is not one.
const EMOJI_CORE = /[\p{Extended_Pictographic}\p{Regional_Indicator}\u20E3]/u;

/** One Unicode emoji (a single grapheme, possibly a ZWJ or flag sequence), in NFC; 400 otherwise. */
export function parseEmoji(raw: string, path: string): string {
  const emoji = raw.normalize('NFC');
  const single = [...graphemes.segment(emoji)].length === 1;
  if (!single || !EMOJI_PARTS.test(emoji) || !EMOJI_CORE.test(emoji)) {
    throw new AppError('VALIDATION_FAILED', `${path.slice(1)} must be one Unicode emoji`, [{ path, message: 'must be one Unicode emoji' }]);
  }
  return emoji;
}

/** Adds the caller's reaction; adding the same emoji again changes nothing (one per user and emoji). */
export async function addReaction(ctx: Ctx, taskId: number, messageId: number, rawEmoji: string): Promise<MessageDto> {
  const { db, actor } = ctx;
  const emoji = parseEmoji(rawEmoji, '/emoji');
  const { task } = await authorizeMessage(db, actor, taskId, messageId, 'react');
  const added = await queryRows<{ userId: number }>(
    db,
    sql`insert into message_reactions (organization_id, message_id, user_id, emoji)
        values (${actor.organizationId}, ${messageId}, ${actor.userId}, ${emoji}) on conflict do nothing returning user_id as "userId"`,
  );
  const message = (await loadMessages(db, actor.organizationId, [messageId]))[0]!;
  if (added.length > 0) emitMessage(ctx, 'message.reaction.added', task, message);
  return message;
}

/** Removes the caller's own reaction (never another's); removing one that is not there changes nothing. */
export async function removeReaction(ctx: Ctx, taskId: number, messageId: number, rawEmoji: string): Promise<MessageDto> {
  const { db, actor } = ctx;
  const emoji = parseEmoji(rawEmoji, '/params/emoji');
  const { task } = await authorizeMessage(db, actor, taskId, messageId, 'react');
  const removed = await queryRows<{ userId: number }>(
    db,
    sql`delete from message_reactions where message_id = ${messageId} and user_id = ${actor.userId} and emoji = ${emoji} returning user_id as "userId"`,
  );
  const message = (await loadMessages(db, actor.organizationId, [messageId]))[0]!;
  if (removed.length > 0) emitMessage(ctx, 'message.reaction.removed', task, message);
  return message;
}
