export interface SseEvent {
  event: string;
  data: string;
}

/**
 * A text/event-stream reader fed as chunks arrive: an event ends at a blank line, which may come
 * in a later chunk than its start, so the tail stays until it does.
 */
export function sseParser(): { push(chunk: string): SseEvent[]; end(): SseEvent[] } {
  let buffer = '';
  const parse = (block: string): SseEvent | null => {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    return data.length ? { event, data: data.join('\n') } : null;
  };
  const take = (final: boolean) => {
    const blocks = buffer.split('\n\n');
    buffer = final ? '' : blocks.pop()!;
    return blocks.map(parse).filter((e): e is SseEvent => e !== null);
  };
  return {
    push(chunk) {
      buffer += chunk.replace(/\r\n?/g, '\n');
      return take(false);
    },
    end: () => take(true),
  };
}
