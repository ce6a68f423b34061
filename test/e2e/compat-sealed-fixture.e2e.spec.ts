import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { runIn } from '../../apps/chronicle-cli/src/cli-test.fixture.js';
import { bearer, KEYS } from '../support/app.js';
import { exportLinesOf, importFixture, itAuditsAndExportsAgain, type ExportLine } from '../support/frozen-fixture.js';

/**
 * The frozen fixture of the sealed stored forms (test/fixtures/compat-sealed/README.md): an export whose content is
 * sealed (events sealed alone, `1:`, and members of runs, `2:`), carrying each session's data key, and an erased
 * session's ciphertext without one. It imports and reads back, in this and every later version, as the commit
 * that made it served it: a change of how sealed content is stored or opened that breaks stored logs fails here.
 * The expected values are read from expected.json; none is computed here, and neither file is ever regenerated.
 */
interface ExpectedSession {
  readonly sessionId: string;
  readonly erased?: true;
  readonly headVersion: number;
  readonly headHash: string;
  readonly storedForms: { readonly '1:': number; readonly '2:': number; readonly plain: number };
  readonly title?: string;
  readonly displayHash?: string;
  readonly contextHash?: string;
  readonly messageCount?: number;
  readonly markers?: readonly { readonly runId: string; readonly cause: string; readonly status: string }[];
  readonly versions?: readonly { readonly version: number; readonly display: string; readonly context: string }[];
  /** Every event as served, its content opened, read in pages of `eventsPage`. */
  readonly eventsPage?: number;
  readonly events?: readonly { readonly version: number; readonly type: string; readonly data: unknown }[];
}

const FIXTURE = fileURLToPath(new URL('../fixtures/compat-sealed/sessions.ndjson', import.meta.url));
const expected = JSON.parse(readFileSync(new URL('../fixtures/compat-sealed/expected.json', import.meta.url), 'utf8')) as {
  readonly madeFrom: string;
  readonly sessions: readonly ExpectedSession[];
};
const fixture = exportLinesOf(readFileSync(FIXTURE, 'utf8'));
/** An export line's event and the key it carries, as JSON text (recordedAt is the import's time). */
const eventText = ({ sessionId, streamId, version, type, data, hash, dataKey }: ExportLine) => JSON.stringify({ sessionId, streamId, version, type, data, hash, dataKey });
const formOf = (line: ExportLine) => {
  const sealed = (line.data as { sealed?: unknown }).sealed;
  return typeof sealed === 'string' ? sealed.slice(0, 2) : 'plain';
};
const live = expected.sessions.filter((session) => session.erased !== true);
const erased = expected.sessions.filter((session) => session.erased === true);

const fx = importFixture(FIXTURE);
const read = fx.read;

describe(`the frozen fixture of sealed content (test/fixtures/compat-sealed, made by ${expected.madeFrom})`, () => {
  it('holds both sealed forms, a data key for each readable session and none for the erased one, and imports whole', () => {
    for (const session of expected.sessions) {
      const stream = fixture.filter((line) => line.sessionId === session.sessionId);
      const forms = { '1:': 0, '2:': 0, plain: 0 };
      for (const line of stream) forms[formOf(line) as keyof typeof forms] += 1;
      expect({ sessionId: session.sessionId, forms, keyed: stream[0]?.dataKey !== undefined }).toEqual({
        sessionId: session.sessionId,
        forms: session.storedForms,
        keyed: session.erased !== true,
      });
    }
    expect(fixture.some((line) => formOf(line) === '1:') && fixture.some((line) => formOf(line) === '2:')).toBe(true);
    expect(fx.imported().stderr).not.toContain('refusing');
    expect(fx.imported()).toMatchObject({ code: 0, stdout: `imported ${fixture.length} event(s) of ${expected.sessions.length} stream(s); 0 already stored\n` });
  });

  describe.each(live.map((session) => [session.sessionId, session] as const))('%s', (sessionId, session) => {
    it('is served at its head with its title opened and the display and context hashes it was made with', async () => {
      const summary = await read(`/v1/sessions/${sessionId}`);
      expect({ status: summary.status, version: summary.body.version, title: summary.body.title }).toEqual({ status: 200, version: session.headVersion, title: session.title });
      const display = await read(`/v1/sessions/${sessionId}/transcript?view=display`);
      expect({ version: display.body.version, hash: display.body.hash, rows: display.body.messages.length }).toEqual({
        version: session.headVersion,
        hash: session.displayHash,
        rows: session.messageCount,
      });
      const context = await read(`/v1/sessions/${sessionId}/transcript?view=context`);
      expect({ version: context.body.version, hash: context.body.hash }).toEqual({ version: session.headVersion, hash: session.contextHash });
      const markers = await read(`/v1/sessions/${sessionId}/markers`);
      expect(markers.body.items.map(({ runId, cause, status }: { runId: string; cause: string; status: string }) => ({ runId, cause, status }))).toEqual(session.markers);
    });

    it('is served at every earlier version with the hashes it was made with (reads that begin or end inside a run)', async () => {
      const served = [];
      for (const { version } of session.versions ?? []) {
        const display = await read(`/v1/sessions/${sessionId}/transcript?view=display&at=${version}`);
        const context = await read(`/v1/sessions/${sessionId}/transcript?view=context&at=${version}`);
        served.push({ version, display: display.body.hash, context: context.body.hash });
      }
      expect(served).toEqual(session.versions);
    });

    it('serves every event with the content it was made with, in pages that begin and end inside runs', async () => {
      const served = [];
      for (let after = 0; ; ) {
        const page = await read(`/v1/sessions/${sessionId}/events?after=${after}&limit=${session.eventsPage}`);
        expect(page.status).toBe(200);
        served.push(...page.body.items.map(({ version, type, data }: { version: number; type: string; data: unknown }) => ({ version, type, data })));
        if (page.body.nextAfter === null || page.body.items.length === 0) break;
        after = page.body.nextAfter;
      }
      expect(served).toEqual(session.events);
    });

    it('replays with chronicle replay to the same hashes, and audits as a match', async () => {
      for (const [view, hash] of [['display', session.displayHash], ['context', session.contextHash]] as const) {
        const replay = await runIn(fx.app().database.url, ['replay', sessionId, '--view', view, '--json']);
        expect(replay.code).toBe(0);
        expect(JSON.parse(replay.stdout)).toMatchObject({ version: session.headVersion, hash });
      }
      const audit = await request(fx.app().server).post(`/v1/sessions/${sessionId}/audit`).set(bearer(KEYS.admin)).send({});
      expect(audit.body).toMatchObject({ sessionId, version: session.headVersion, match: true, chain: { ok: true } });
    });
  });

  describe.each(erased.map((session) => [session.sessionId, session] as const))('%s (erased before the export)', (sessionId, session) => {
    it('answers 410 SESSION_ERASED, and audits as an erased match over its sealed chain', async () => {
      const summary = await read(`/v1/sessions/${sessionId}`);
      expect(summary.status).toBe(410);
      expect(summary.body).toMatchObject({ code: 'SESSION_ERASED', status: 410 });
      const audit = await request(fx.app().server).post(`/v1/sessions/${sessionId}/audit`).set(bearer(KEYS.admin)).send({});
      expect(audit.body).toMatchObject({ sessionId, version: session.headVersion, match: true, erased: true, chain: { ok: true } });
    });
  });

  // The re-export gives back each line's stored form and the data key it carries.
  itAuditsAndExportsAgain(() => fx.app().database.url, { lines: fixture, sessions: expected.sessions, lineText: eventText, madeBy: expected.madeFrom });
});
