import http from 'node:http';
import request from 'supertest';
import { expectStatus, ingestClient } from './ingest.js';

/** The shared e2e steps must fail a test whose setup the service refused, naming what was refused. */
const refusing = http.createServer((req, res) => {
  res.writeHead(req.url === '/v1/sessions' ? 409 : 200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ code: req.url === '/v1/sessions' ? 'SESSION_ALREADY_EXISTS' : 'OK', auth: req.headers.authorization }));
});

describe('the e2e ingest client', () => {
  it('fails a step the service did not answer with its success status, naming the route, the status and the body', async () => {
    await expect(ingestClient(() => refusing).startSession('s1')).rejects.toThrow('POST /v1/sessions answered 409, expected 201: {"code":"SESSION_ALREADY_EXISTS"');
    await expect(expectStatus(request(refusing).get('/v1/sessions/s1'), 404)).rejects.toThrow('GET /v1/sessions/s1 answered 200, expected 404');
  });

  it('sends each call with its key and answers the response of a step that succeeded', async () => {
    const api = ingestClient(() => refusing);
    expect((await api.recordMessages('s1', [])).body).toEqual({ code: 'OK', auth: 'Bearer test-ingest-key' });
    expect((await api.read('/v1/sessions/s1')).body.auth).toBe('Bearer test-read-key');
    expect((await api.admin('/v1/audit')).body.auth).toBe('Bearer test-admin-key');
  });
});
