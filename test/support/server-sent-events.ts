import http from 'node:http';

export interface ServerSentEvent {
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

/** The complete events of a text/event-stream text (each ends at a blank line); comments and `retry:` blocks are no events. */
export function parseEvents(text: string): ServerSentEvent[] {
  return text
    .split('\n\n')
    .slice(0, -1)
    .flatMap((block) => {
      const fields = block.split('\n').filter((line) => !line.startsWith(':')).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trimStart()]);
      const field = (name: string) => fields.filter(([key]) => key === name).map(([, value]) => value);
      if (field('data').length === 0) return [];
      const id = field('id').at(-1);
      return [{ event: field('event').at(-1) ?? 'message', data: field('data').join('\n'), ...(id === undefined ? {} : { id }) }];
    });
}

/** The parsed data of the stream's events named `event`, in order. */
export const dataOf = <T = unknown>(events: readonly ServerSentEvent[], event: string): T[] =>
  events.filter((candidate) => candidate.event === event).map((candidate) => JSON.parse(candidate.data) as T);

export interface EventStream {
  /** The response head, once it arrived (rejected when the request failed before it). */
  readonly ready: Promise<http.IncomingMessage>;
  /** The complete events so far, in order (the array grows as they arrive). */
  readonly events: readonly ServerSentEvent[];
  /** Everything received so far, heartbeats included. */
  text(): string;
  /** Whether the server ended the response (a clean end, not a cut). */
  ended(): boolean;
  close(): void;
}

/**
 * A client of a text/event-stream route (`/live`, an audit job's `/live`): the events are parsed as they arrive,
 * each complete one once, and `onEvent` sees each as it completes.
 */
export function openEventStream(url: string, headers: Readonly<Record<string, string>>, onEvent?: (event: ServerSentEvent) => void): EventStream {
  const events: ServerSentEvent[] = [];
  const chunks: string[] = [];
  let pending = '';
  let ended = false;
  const req = http.get(url, { headers });
  const ready = new Promise<http.IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    // Before an answer, a failed request fails whoever awaits it; after one, `close()` ends it this way too.
    req.on('error', reject);
  });
  ready.catch(() => undefined);
  void ready.then((res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      chunks.push(chunk);
      pending += chunk;
      const end = pending.lastIndexOf('\n\n');
      if (end < 0) return;
      const complete = parseEvents(pending.slice(0, end + 2));
      pending = pending.slice(end + 2);
      for (const event of complete) {
        events.push(event);
        onEvent?.(event);
      }
    });
    res.on('end', () => (ended = true));
    res.on('error', () => undefined);
  });
  return { ready, events, text: () => chunks.join(''), ended: () => ended, close: () => req.destroy() };
}
