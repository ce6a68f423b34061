import { APPEND_VALUE_COUNT, composeAppend, shiftPlaceholders } from './append-statements.js';

describe('shiftPlaceholders', () => {
  it('renumbers the placeholders of SQL code', () => {
    expect(shiftPlaceholders('SELECT $1, $2::int FROM t WHERE a = $1', 10, 2)).toBe('SELECT $11, $12::int FROM t WHERE a = $11');
  });

  it('leaves strings, quoted identifiers and comments alone, whatever they hold', () => {
    const text = [
      `SELECT '$1 ''$2'' don''t', E'it\\'s $1', "we'ird $1" -- it's $1`,
      `, $1 /* isn't $2 */ , $1 FROM appended a`,
    ].join('\n');
    expect(shiftPlaceholders(text, 5, 1)).toBe(
      [`SELECT '$1 ''$2'' don''t', E'it\\'s $1', "we'ird $1" -- it's $1`, `, $6 /* isn't $2 */ , $6 FROM appended a`].join('\n'),
    );
  });

  it('refuses a placeholder outside the declared values, dollar quoting and unterminated quotes', () => {
    expect(() => shiftPlaceholders('SELECT $2', 3, 1)).toThrow('uses $2 but declares 1 value(s)');
    expect(() => shiftPlaceholders('SELECT $0', 3, 1)).toThrow('uses $0');
    expect(() => shiftPlaceholders('SELECT $$x$$', 3, 1)).toThrow('dollar quoting');
    expect(() => shiftPlaceholders("SELECT 'x", 3, 1)).toThrow('unterminated string');
    expect(() => shiftPlaceholders('SELECT "x', 3, 1)).toThrow('unterminated identifier');
    expect(() => shiftPlaceholders('SELECT 1 /* x', 3, 1)).toThrow('unterminated comment');
  });
});

describe('composeAppend', () => {
  const notify = { text: `SELECT count(pg_notify($1, a.stream_id || ' ' || a.version)) FROM appended a`, valueCount: 1, values: () => ['c'] };
  const rows = { text: 'INSERT INTO t SELECT a.stream_id, $1, $2 FROM appended a RETURNING 1', valueCount: 2, values: () => ['x', 'y'] };

  it("numbers each fused statement's values after the append's and the statements before it", () => {
    for (const variant of ['known-heads', 'function'] as const) {
      const sql = composeAppend(variant, [notify, rows]);
      const base = APPEND_VALUE_COUNT[variant];
      expect(sql).toContain(`fused_1 AS MATERIALIZED (SELECT count(pg_notify($${base + 1}, a.stream_id || ' ' || a.version)) FROM appended a)`);
      expect(sql).toContain(`fused_2 AS MATERIALIZED (INSERT INTO t SELECT a.stream_id, $${base + 2}, $${base + 3} FROM appended a RETURNING 1)`);
      expect(sql).toContain('CROSS JOIN (SELECT count(*) FROM fused_1) AS f1 CROSS JOIN (SELECT count(*) FROM fused_2) AS f2');
      // Every placeholder of the append itself is one of its own values.
      const own = sql.slice(0, sql.indexOf('fused_1')).match(/\$(\d+)/g)!.map((p) => Number(p.slice(1)));
      expect(Math.max(...own)).toBe(base);
    }
  });

  it('gives fused statements `appended` and keeps its own CTEs out of their way', () => {
    for (const variant of ['known-heads', 'function'] as const) {
      const ctes = [...composeAppend(variant, []).matchAll(/(\w+) AS (?:MATERIALIZED )?\(/g)].map((m) => m[1]);
      expect(ctes.filter((name) => name !== 'appended').every((name) => name.startsWith('chronicle_'))).toBe(true);
      expect(ctes).toContain('appended');
    }
  });
});
