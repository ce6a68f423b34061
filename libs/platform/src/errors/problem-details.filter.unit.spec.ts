import { type ArgumentsHost, Logger } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemDetailsFilter } from './problem-details.filter.js';

/** A Fastify request and reply just real enough for the filter: the request's socket may be gone or not. */
function exchange(clientGone: boolean) {
  const request = {
    method: 'POST',
    url: '/v1/sessions/s/runs/r/journal',
    id: 'req-1',
    headers: {},
    routeOptions: { url: '/v1/sessions/:id/runs/:runId/journal' },
    raw: { socket: { destroyed: clientGone }, readableAborted: false },
  } as unknown as FastifyRequest;
  const sent: { status?: number; headers: Record<string, string>; body?: string } = { headers: {} };
  const reply = {
    sent: false,
    raw: { headersSent: false, writableEnded: false, end: () => undefined },
    headers: (h: Record<string, string>) => Object.assign(sent.headers, h) && reply,
    header: (k: string, v: string) => ((sent.headers[k] = v), reply),
    status: (code: number) => ((sent.status = code), reply),
    type: (t: string) => ((sent.headers['content-type'] = t), reply),
    send: (body: string) => ((sent.body = body), reply),
  };
  const host = { switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }) } as unknown as ArgumentsHost;
  return { host, sent };
}

const socketError = (code: string) => Object.assign(new Error(`read ${code}`), { code, errno: -104, syscall: 'read' });

beforeAll(() => Logger.overrideLogger(false));

describe('the problem-details filter, when the database goes away mid-request', () => {
  let disconnects: number;
  const filter = new ProblemDetailsFilter({ bodyLimitBytes: 1024, onClientDisconnect: () => (disconnects += 1) });
  beforeEach(() => (disconnects = 0));

  it.each(['ECONNRESET', 'EPIPE'])('answers the database socket\'s %s with a 503 and Retry-After while the client waits', (code) => {
    const { host, sent } = exchange(false);
    filter.catch(socketError(code), host);
    expect(sent.status).toBe(503);
    expect(sent.headers['Retry-After']).toBe('2');
    expect(JSON.parse(sent.body ?? '{}')).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE' });
    expect(disconnects).toBe(0);
  });

  it('answers a connection PostgreSQL terminated (57P01) and a refused connect with a 503', () => {
    for (const error of [Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }), socketError('ECONNREFUSED')]) {
      const { host, sent } = exchange(false);
      filter.catch(error, host);
      expect([sent.status, sent.headers['Retry-After']]).toEqual([503, '2']);
    }
  });

  it('answers a commit whose connection broke (the wrapped cause) with a 503', () => {
    const { host, sent } = exchange(false);
    filter.catch(new Error("the commit's outcome is unknown", { cause: new Error('Connection terminated unexpectedly') }), host);
    expect(sent.status).toBe(503);
  });

  it('answers a statement given up for want of an answer (query_timeout) and a pool wait past its bound with a 503', () => {
    for (const error of [
      new Error("the commit's outcome is unknown", { cause: new Error('Query read timeout') }),
      new Error('timeout exceeded when trying to connect'),
    ]) {
      const { host, sent } = exchange(false);
      filter.catch(error, host);
      expect([sent.status, sent.headers['Retry-After']]).toEqual([503, '2']);
    }
  });

  it('counts an ECONNRESET as a client disconnect, and sends nothing, only when the HTTP client\'s own socket is gone', () => {
    const { host, sent } = exchange(true);
    filter.catch(socketError('ECONNRESET'), host);
    expect(sent.status).toBeUndefined();
    expect(disconnects).toBe(1);
  });

  it('still answers a bug with a 500', () => {
    const { host, sent } = exchange(false);
    filter.catch(new TypeError('x is undefined'), host);
    expect(sent.status).toBe(500);
    expect(sent.headers['Retry-After']).toBeUndefined();
  });
});

describe('the problem-details filter, for a write that other writers starved', () => {
  it('answers WRITE_CONTENTION with a 503 and Retry-After, naming the code', () => {
    const filter = new ProblemDetailsFilter({ bodyLimitBytes: 1024 });
    const { host, sent } = exchange(false);
    filter.catch(Object.assign(new Error('Stream session-s kept moving under 20 attempts of this write'), { code: 'WRITE_CONTENTION' }), host);
    expect([sent.status, sent.headers['Retry-After']]).toEqual([503, '1']);
    expect(JSON.parse(sent.body ?? '{}')).toMatchObject({ status: 503, code: 'WRITE_CONTENTION', title: 'Service Unavailable' });
  });
});

describe('the problem-details filter, in its log lines', () => {
  it('names a request no route matched by its path, never its query (a search is a session content)', () => {
    const lines: string[] = [];
    const { debug, error } = Logger.prototype;
    Logger.prototype.debug = (message: unknown) => void lines.push(String(message));
    Logger.prototype.error = (message: unknown) => void lines.push(String(message));
    try {
      const filter = new ProblemDetailsFilter({ bodyLimitBytes: 1024 });
      for (const clientGone of [true, false]) {
        const { host } = exchange(clientGone);
        const request = host.switchToHttp().getRequest<{ url: string; routeOptions?: unknown }>();
        request.url = '/v1/sessions?q=Wrenfallow%20diagnosis';
        request.routeOptions = undefined;
        filter.catch(clientGone ? socketError('ECONNRESET') : new TypeError('x is undefined'), host);
      }
      expect(lines).toHaveLength(2);
      expect(lines.join('\n')).toContain('POST /v1/sessions ');
      expect(lines.join('\n')).not.toContain('Wrenfallow');
    } finally {
      Logger.prototype.debug = debug;
      Logger.prototype.error = error;
    }
  });
});
