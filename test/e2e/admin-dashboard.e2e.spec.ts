import request from 'supertest';
import { bearer, KEYS, startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('the admin dashboard at /admin (built by npm run build)', () => {
  it('serves the page without a key, under a same-origin content security policy', async () => {
    for (const path of ['/admin', '/admin/']) {
      const page = await request(t.server).get(path);
      expect([path, page.status]).toEqual([path, 200]);
      expect(page.headers['content-type']).toContain('text/html');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.headers['cache-control']).toBe('no-cache');
    }
  });

  it('serves the hashed assets the page names, cached for good', async () => {
    const page = await request(t.server).get('/admin/');
    const assets = [...page.text.matchAll(/\/admin\/assets\/[\w.-]+\.(?:js|css)/g)].map(([path]) => path);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const path of assets) {
      const asset = await request(t.server).get(path);
      expect([path, asset.status]).toEqual([path, 200]);
      expect(asset.headers['cache-control']).toContain('immutable');
    }
    expect((await request(t.server).get('/admin/assets/missing.js')).status).toBe(404);
  });
});

describe('GET /v1/key', () => {
  it('answers the scopes of the key the request carries, admin implying the others', async () => {
    expect((await request(t.server).get('/v1/key').set(bearer(KEYS.read))).body).toEqual({ scopes: ['read'] });
    expect((await request(t.server).get('/v1/key').set(bearer(KEYS.admin))).body).toEqual({ scopes: ['ingest', 'read', 'admin'] });
  });

  it('refuses a wrong key (401) and a key without the read scope (403) as problem details', async () => {
    const wrong = await request(t.server).get('/v1/key').set(bearer('nope'));
    expect(wrong.status).toBe(401);
    expect(wrong.body.title).toBeTruthy();
    expect((await request(t.server).get('/v1/key').set(bearer(KEYS.ingest))).status).toBe(403);
  });
});
