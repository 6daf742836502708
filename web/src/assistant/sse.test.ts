import { describe, expect, it } from 'vitest';
import { sseParser } from './sse';

describe('event-stream parser', () => {
  it('yields events as their blank line arrives, across chunk boundaries', () => {
    const p = sseParser();
    expect(p.push('event: delta\ndata: {"text":"Hel')).toEqual([]);
    expect(p.push('lo"}\n\nevent: delta\ndata: {"text":" world"}\n')).toEqual([{ event: 'delta', data: '{"text":"Hello"}' }]);
    expect(p.push('\nevent: done\r\ndata: {}\r\n\r\n')).toEqual([
      { event: 'delta', data: '{"text":" world"}' },
      { event: 'done', data: '{}' },
    ]);
  });

  it('joins data lines, skips comments and events without data, defaults to message', () => {
    const p = sseParser();
    expect(p.push(': heartbeat\n\nevent: ping\n\ndata: a\ndata: b\n\n')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('flushes an unterminated last event at the end of the stream', () => {
    const p = sseParser();
    p.push('event: done\ndata: {"answer":"x"}');
    expect(p.end()).toEqual([{ event: 'done', data: '{"answer":"x"}' }]);
  });
});
