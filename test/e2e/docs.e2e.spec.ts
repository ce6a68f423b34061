import request from 'supertest';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('GET /docs', () => {
  it('serves the OpenAPI UI and a document generated from the request schemas', async () => {
    const ui = await request(t.server).get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.headers['content-type']).toContain('text/html');
    // The UI's assets come from @fastify/static on Fastify: without it the page would load and stay blank.
    const bundle = await request(t.server).get('/docs/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toContain('javascript');
    const res = await request(t.server).get('/docs/openapi.json');
    expect(res.status).toBe(200);
    const submit = res.body.paths['/v1/sessions/{id}/submissions'].post;
    const body = submit.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(expect.arrayContaining(['runId', 'text', 'submittedAt']));
    expect(body.properties.runId.pattern).toBe('^[A-Za-z0-9_.:-]{1,128}$');
    expect(Object.keys(submit.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '409', '412', '413', '429']));
    expect(res.body.components.schemas.TurnInterruptedData.properties.cause.enum).toContain('process_restart');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/v1/sessions/{id}/live', '/v1/sessions/{id}/transcript']));
  });
});
