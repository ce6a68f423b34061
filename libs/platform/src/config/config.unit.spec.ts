import { loadConfig, MAX_TIMER_MS } from './config.js';

describe('loadConfig', () => {
  describe('CHRONICLE_RATE_LIMIT_PER_MINUTE', () => {
    it('is off (0) when unset, blank or 0', () => {
      expect(loadConfig({}).rateLimitPerMinute).toBe(0);
      expect(loadConfig({ CHRONICLE_RATE_LIMIT_PER_MINUTE: '' }).rateLimitPerMinute).toBe(0);
      expect(loadConfig({ CHRONICLE_RATE_LIMIT_PER_MINUTE: '0' }).rateLimitPerMinute).toBe(0);
    });

    it('reads a whole number of requests per minute', () => {
      expect(loadConfig({ CHRONICLE_RATE_LIMIT_PER_MINUTE: '6000' }).rateLimitPerMinute).toBe(6000);
    });

    it.each(['-1', '1.5', 'lots', '1e3'])('refuses %s with one line naming the variable', (value) => {
      expect(() => loadConfig({ CHRONICLE_RATE_LIMIT_PER_MINUTE: value })).toThrow(
        /^invalid configuration: CHRONICLE_RATE_LIMIT_PER_MINUTE: must be a whole number of requests per minute per API key \(0 or unset = no limit\)$/,
      );
    });
  });

  describe('CHRONICLE_APPEND_LINGER_MS', () => {
    it("is unset (the engine's default) when not given, and read in whole milliseconds when it is", () => {
      expect(loadConfig({}).appendLingerMs).toBeUndefined();
      expect(loadConfig({ CHRONICLE_APPEND_LINGER_MS: '0' }).appendLingerMs).toBe(0);
      expect(loadConfig({ CHRONICLE_APPEND_LINGER_MS: '5' }).appendLingerMs).toBe(5);
    });

    it.each(['-1', '1.5', '51', 'soon'])('refuses %s naming the variable', (value) => {
      expect(() => loadConfig({ CHRONICLE_APPEND_LINGER_MS: value })).toThrow(/CHRONICLE_APPEND_LINGER_MS/);
    });
  });

  describe('CHRONICLE_API_KEYS', () => {
    it('accepts keys with per-key limits', () => {
      expect(loadConfig({ CHRONICLE_API_KEYS: 'gw:ingest+read@0,worker:ingest@1200' }).apiKeys).toBe('gw:ingest+read@0,worker:ingest@1200');
    });

    it('refuses a malformed per-key limit at load, in one line', () => {
      expect(() => loadConfig({ CHRONICLE_API_KEYS: 'worker:ingest@fast' })).toThrow(
        /^invalid configuration: CHRONICLE_API_KEYS entry "work…": rate limit "@fast" must be a whole number of requests per minute \(0 = no limit\)$/,
      );
    });
  });

  describe('CHRONICLE_CORS_ORIGINS', () => {
    it('is empty (no CORS) when unset or blank', () => {
      expect(loadConfig({}).corsOrigins).toEqual([]);
      expect(loadConfig({ CHRONICLE_CORS_ORIGINS: ' , ' }).corsOrigins).toEqual([]);
    });

    it('reads comma-separated exact origins', () => {
      expect(loadConfig({ CHRONICLE_CORS_ORIGINS: 'https://dash.example.com, http://localhost:5173' }).corsOrigins).toEqual([
        'https://dash.example.com',
        'http://localhost:5173',
      ]);
    });

    it.each(['*', 'dash.example.com', 'https://dash.example.com/', 'https://dash.example.com/app', 'ftp://files.example.com', 'https://*.example.com'])(
      'refuses %s with one line naming the variable',
      (value) => {
        expect(() => loadConfig({ CHRONICLE_CORS_ORIGINS: `https://ok.example.com,${value}` })).toThrow(
          `invalid configuration: CHRONICLE_CORS_ORIGINS entry "${value}" is not an exact origin`,
        );
        try {
          loadConfig({ CHRONICLE_CORS_ORIGINS: value });
        } catch (error) {
          expect((error as Error).message).not.toContain('\n');
        }
      },
    );
  });

  describe('CHRONICLE_AUDIT_FULL_EVERY_MS', () => {
    it('is 10 minutes when unset, and reads milliseconds (0: a full audit every time)', () => {
      expect(loadConfig({}).auditFullEveryMs).toBe(600_000);
      expect(loadConfig({ CHRONICLE_AUDIT_FULL_EVERY_MS: '60000' }).auditFullEveryMs).toBe(60_000);
      expect(loadConfig({ CHRONICLE_AUDIT_FULL_EVERY_MS: '0' }).auditFullEveryMs).toBe(0);
    });

    it('refuses a negative or fractional value at load', () => {
      for (const value of ['-1', '1.5', 'soon']) expect(() => loadConfig({ CHRONICLE_AUDIT_FULL_EVERY_MS: value })).toThrow(/CHRONICLE_AUDIT_FULL_EVERY_MS/);
    });
  });

  describe('CHRONICLE_DB_CONNECT_TIMEOUT_MS and CHRONICLE_DB_QUERY_TIMEOUT_MS', () => {
    it('is 10 s when unset (30 s for an answer to a statement), and reads milliseconds (0: no bound)', () => {
      expect(loadConfig({}).dbConnectTimeoutMs).toBe(10_000);
      expect(loadConfig({}).dbQueryTimeoutMs).toBe(30_000);
      expect(loadConfig({ CHRONICLE_DB_QUERY_TIMEOUT_MS: '0' }).dbQueryTimeoutMs).toBe(0);
      expect(loadConfig({ CHRONICLE_DB_CONNECT_TIMEOUT_MS: '2500' }).dbConnectTimeoutMs).toBe(2500);
      expect(loadConfig({ CHRONICLE_DB_CONNECT_TIMEOUT_MS: '0' }).dbConnectTimeoutMs).toBe(0);
    });

    it('refuses a negative or fractional value at load', () => {
      for (const name of ['CHRONICLE_DB_CONNECT_TIMEOUT_MS', 'CHRONICLE_DB_QUERY_TIMEOUT_MS']) {
        for (const value of ['-1', '1.5', 'soon']) expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
      }
    });
  });

  describe('the delays that end up in timers', () => {
    const TIMERS = [
      'CHRONICLE_RECOVERY_INTERVAL_MS',
      'CHRONICLE_AUDIT_INTERVAL_MS',
      'CHRONICLE_AUDIT_FULL_EVERY_MS',
      'CHRONICLE_PROJECTOR_INTERVAL_MS',
      'CHRONICLE_LIVE_HEARTBEAT_MS',
      'CHRONICLE_RETENTION_INTERVAL_MS',
      'CHRONICLE_DB_CONNECT_TIMEOUT_MS',
      'CHRONICLE_DB_QUERY_TIMEOUT_MS',
    ];

    it('refuses one longer than a Node timer keeps (it would fire every millisecond), naming the variable', () => {
      for (const name of TIMERS) {
        expect(() => loadConfig({ [name]: '2592000000' })).toThrow(new RegExp(`${name}: must be at most ${MAX_TIMER_MS} ms`));
        expect(() => loadConfig({ [name]: String(MAX_TIMER_MS) })).not.toThrow();
      }
    });
  });

  describe('a value of blanks only', () => {
    it('is unset, so the default applies, never 0', () => {
      const config = loadConfig({ PORT: ' ', CHRONICLE_RECOVERY_INTERVAL_MS: '  ', CHRONICLE_SNAPSHOT_EVERY: '\t' });
      expect([config.port, config.recoveryIntervalMs, config.snapshotEvery]).toEqual([loadConfig({}).port, 5000, 200]);
    });
  });
});
