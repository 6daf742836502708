import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import { answeredBy, readAnswer, sourceLink } from './ask';

/** A response body arriving in the given pieces (cut anywhere, as a network does). */
const body = (...pieces: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of pieces) controller.enqueue(new TextEncoder().encode(p));
      controller.close();
    },
  });

const done = { answer: 'Fridays [1].', sources: [{ sourceType: 'page', sourceId: 7, title: 'Deploys', url: 'x', score: 1 }], conversationId: 3, model: 'm', usage: { promptTokens: 1, completionTokens: 1 } };

describe('the assistant’s streamed answer', () => {
  it('passes text pieces on as they come and answers the done event’s AiAnswer', async () => {
    const pieces: string[] = [];
    const answer = await readAnswer(body('event: delta\ndata: {"text":"Fri', 'days"}\n\nevent: delta\ndata: {"text":" [1]."}\n\n', `event: done\ndata: ${JSON.stringify(done)}\n\n`), (t) => pieces.push(t));
    expect(pieces).toEqual(['Fridays', ' [1].']);
    expect(answer).toEqual(done);
  });

  it('throws the problem of an error event, and says so when the stream breaks off before done', async () => {
    const failed = readAnswer(body('event: delta\ndata: {"text":"The"}\n\nevent: error\ndata: {"status":502,"code":"AI_PROVIDER_FAILED","detail":"the model timed out"}\n\n'), () => {});
    await expect(failed).rejects.toEqual(new ApiError(502, 'AI_PROVIDER_FAILED', 'the model timed out'));
    await expect(readAnswer(body('event: delta\ndata: {"text":"The"}\n\n'), () => {})).rejects.toMatchObject({ code: 'INCOMPLETE_ANSWER' });
  });

  it('links each kind of source to its screen in the client', () => {
    expect(sourceLink({ sourceType: 'page', sourceId: 7 }, 2)).toBe('/spaces/2/docs/7');
    expect(sourceLink({ sourceType: 'reglament', sourceId: 8 }, 2)).toBe('/spaces/2/reglaments/8');
    expect(sourceLink({ sourceType: 'project-documentation', sourceId: 9 }, 2)).toBe('/projects/9');
    expect(answeredBy(null)).toMatch(/^No language model is configured/);
  });
});
