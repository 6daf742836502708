import { describe, expect, it, vi } from 'vitest';
import { LiveStream } from './stream';

/** A stand-in for the browser's WebSocket: records frames, lets the test play the server. */
class FakeSocket {
  static all: FakeSocket[] = [];
  sent: unknown[] = [];
  onopen?: () => void;
  onmessage?: (m: { data: string }) => void;
  onclose?: (e: { code: number }) => void;
  constructor() {
    FakeSocket.all.push(this);
  }
  send(text: string) {
    this.sent.push(JSON.parse(text));
  }
  close() {}
  server(frame: object) {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

const envelope = (id: number) => ({ id, type: 'task.updated', payload: {}, organizationId: 1, spaceId: 1, projectId: 1, taskId: 1, actorId: 1, at: '' });

describe('LiveStream', () => {
  it('authenticates by frame, subscribes, and after a reconnect resumes from the last event it saw', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('location', { protocol: 'http:', host: 'localhost:3000' });
    FakeSocket.all = [];
    const seen: number[] = [];
    const live = new LiveStream(() => 'wms_s', () => {}, () => new FakeSocket() as unknown as WebSocket);
    live.onEvent((e) => seen.push(e.id));
    live.start();
    const first = FakeSocket.all[0]!;
    first.onopen!();
    first.server({ type: 'ready', lastEventId: 10 });
    expect(first.sent).toEqual([{ type: 'auth', session: 'wms_s' }, { type: 'subscribe' }]);
    first.server(envelope(11));
    first.server(envelope(12));
    first.server(envelope(12));
    expect(seen).toEqual([11, 12]);

    first.onclose!({ code: 1006 });
    expect(live.status).toBe('offline');
    await vi.advanceTimersByTimeAsync(10_000);
    const second = FakeSocket.all[1]!;
    second.onopen!();
    second.server({ type: 'ready', lastEventId: 20 });
    expect(second.sent).toEqual([{ type: 'auth', session: 'wms_s' }, { type: 'subscribe' }, { type: 'resume', lastEventId: 12 }]);
    second.server(envelope(13));
    expect(seen).toEqual([11, 12, 13]);
    live.stop();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('asks the app to reload on resync and does not reconnect a refused session', () => {
    vi.stubGlobal('location', { protocol: 'https:', host: 'example.test' });
    FakeSocket.all = [];
    const resync = vi.fn();
    const live = new LiveStream(() => 'wms_s', resync, () => new FakeSocket() as unknown as WebSocket);
    live.start();
    const socket = FakeSocket.all[0]!;
    socket.server({ type: 'resync', lastEventId: 40 });
    expect(resync).toHaveBeenCalledOnce();
    expect(live.lastEventId).toBe(40);
    socket.onclose!({ code: 4401 });
    expect(FakeSocket.all).toHaveLength(1);
    vi.unstubAllGlobals();
  });
});
