import { allows, parseApiKeys } from './api-keys.js';

describe('CHRONICLE_API_KEYS parsing', () => {
  it('reads keys with their scopes and no limit of their own', () => {
    const [gateway, dashboard] = parseApiKeys('gw-key:ingest+read, dash-key:admin');
    expect(gateway.key).toBe('gw-key');
    expect([...gateway.scopes]).toEqual(['ingest', 'read']);
    expect(gateway.rateLimitPerMinute).toBeUndefined();
    expect(allows(dashboard, 'ingest')).toBe(true);
  });

  it('reads a per-key rate limit after @, 0 meaning no limit', () => {
    const keys = parseApiKeys('worker:ingest@1200,gw:ingest+read@0,reader:read');
    expect(keys.map((key) => [key.key, key.rateLimitPerMinute])).toEqual([
      ['worker', 1200],
      ['gw', 0],
      ['reader', undefined],
    ]);
    expect([...keys[0].scopes]).toEqual(['ingest']);
  });

  it('keeps a colon inside a key', () => {
    expect(parseApiKeys('a:b:read@5')[0]).toMatchObject({ key: 'a:b', rateLimitPerMinute: 5 });
  });

  it.each([
    ['secret:ingest@', '"secr…": rate limit "@" must be a whole number of requests per minute (0 = no limit)'],
    ['secret:ingest@-5', 'rate limit "@-5" must be a whole number'],
    ['secret:ingest@1.5', 'rate limit "@1.5" must be a whole number'],
    ['secret:ingest@ten', 'rate limit "@ten" must be a whole number'],
    ['secret:ingest@1@2', 'has more than one "@limit"'],
    ['secret:write@10', 'unknown scope "write"'],
    ['secret', 'needs the form key:scope1+scope2[@limit]'],
  ])('refuses %s with one line naming the problem, never the whole key', (spec, message) => {
    expect(() => parseApiKeys(spec)).toThrow(message);
    try {
      parseApiKeys(spec);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
      expect((error as Error).message).not.toContain('secret');
    }
  });
});
