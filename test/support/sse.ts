export interface SseEvent {
  id: string;
  event: string;
  data: string;
}

/**
 * A real SSE client over fetch: reads events until `count` arrived or the time is up, then
 * disconnects. Comments (heartbeats) are skipped.
 */
export async function readSse(
  url: string,
  headers: Record<string, string>,
  { count, timeoutMs = 10_000 }: { count: number; timeoutMs?: number },
): Promise<SseEvent[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => {
    abort.abort();
  }, timeoutMs);
  const events: SseEvent[] = [];
  try {
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: abort.signal,
    });
    if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    while (events.length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0 && events.length < count) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
        }
        if (fields.id !== undefined)
          events.push({ id: fields.id, event: fields.event ?? '', data: fields.data ?? '' });
      }
    }
    await reader.cancel().catch(() => undefined);
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return events;
}
