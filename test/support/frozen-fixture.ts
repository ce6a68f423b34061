import request from 'supertest';
import { runIn, type CliRun } from '../../apps/chronicle-cli/src/cli-test.fixture.js';
import { bearer, KEYS, startTestApp, type TestApp } from './app.js';

/**
 * What the frozen fixtures' tests share (test/fixtures/compat*, `test/e2e/compat*-fixture.e2e.spec.ts`): an export
 * file's lines, and the two checks on the store they were imported into: the whole-store audit, and a re-export
 * that gives the same lines back and ends each stream at the head hash the fixture was made with.
 */
export interface ExportLine {
  readonly sessionId: string;
  readonly streamId: string;
  readonly version: number;
  readonly type: string;
  readonly data: unknown;
  readonly hash: string;
  /** A session's data key, on its stream's first line (sealed content). */
  readonly dataKey?: string;
}

export const exportLinesOf = (text: string): ExportLine[] => text.trim().split('\n').map((line) => JSON.parse(line) as ExportLine);

/**
 * A fresh app whose own database gets the fixture file by `chronicle import` before anything reads it (Jest hooks
 * of the calling file): the app, the import's run, and a GET with the read key.
 */
export function importFixture(file: string): { app(): TestApp; imported(): CliRun; read(path: string): request.Test } {
  let t: TestApp;
  let imported: CliRun;
  beforeAll(async () => {
    t = await startTestApp();
    imported = await runIn(t.database.url, ['import', file]);
  });
  afterAll(async () => {
    await t.close();
  });
  return { app: () => t, imported: () => imported, read: (path) => request(t.server).get(path).set(bearer(KEYS.read)) };
}

interface FrozenFixture {
  /** The fixture's lines, as read from its file. */
  readonly lines: readonly ExportLine[];
  /** Each session and its head chain hash, from expected.json. */
  readonly sessions: readonly { readonly sessionId: string; readonly headHash: string }[];
  /** What of a line the re-export must give back, as text (recordedAt is the import's time). */
  readonly lineText: (line: ExportLine) => string;
  /** The commit that made the fixture, for the tests' names. */
  readonly madeBy: string;
}

/** Registers the whole-store audit and the re-export checks on the database `databaseUrl()` answers. */
export function itAuditsAndExportsAgain(databaseUrl: () => string, fixture: FrozenFixture): void {
  it('audits the whole store as a match with chronicle audit', async () => {
    const audit = await runIn(databaseUrl(), ['audit', '--json']);
    expect(JSON.parse(audit.stdout)).toMatchObject({ sessions: fixture.sessions.length, mismatches: [] });
    expect(audit.code).toBe(0);
  });

  it(`exports the same events again, byte for byte, ending each stream at the head hash ${fixture.madeBy} stored`, async () => {
    const exported = await runIn(databaseUrl(), ['export']);
    expect(exported.code).toBe(0);
    const again = exportLinesOf(exported.stdout);
    expect(again.map(fixture.lineText)).toEqual(fixture.lines.map(fixture.lineText));
    const heads = fixture.sessions.map(({ sessionId }) => ({ sessionId, headHash: again.filter((line) => line.sessionId === sessionId).at(-1)?.hash }));
    expect(heads).toEqual(fixture.sessions.map(({ sessionId, headHash }) => ({ sessionId, headHash })));
  });
}
