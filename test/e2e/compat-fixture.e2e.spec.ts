import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { runIn } from '../../apps/chronicle-cli/src/cli-test.fixture.js';
import { bearer, KEYS } from '../support/app.js';
import { exportLinesOf, importFixture, itAuditsAndExportsAgain, type ExportLine } from '../support/frozen-fixture.js';

/**
 * Issue 30 item 4: a frozen export made by commit 770480d (test/fixtures/compat/README.md) imports and replays to the
 * same answers in this and every later version. The expected values are what 770480d served, read from
 * expected.json; none is computed here, and neither file is ever regenerated: a failure here is a change that
 * breaks old logs.
 */
interface ExpectedSession {
  readonly sessionId: string;
  readonly headVersion: number;
  readonly headHash: string;
  readonly displayHash: string;
  readonly contextHash: string;
  readonly messageCount: number;
  readonly markers: readonly { readonly runId: string; readonly cause: string; readonly status: string }[];
  readonly versions: readonly { readonly version: number; readonly display: string; readonly context: string }[];
}

const FIXTURE = fileURLToPath(new URL('../fixtures/compat/sessions.ndjson', import.meta.url));
const expected = JSON.parse(readFileSync(new URL('../fixtures/compat/expected.json', import.meta.url), 'utf8')) as {
  readonly eventTypes: readonly string[];
  readonly sessions: readonly ExpectedSession[];
};
const fixture = exportLinesOf(readFileSync(FIXTURE, 'utf8'));
/** What an export line says of its event, as JSON text: recordedAt is the import's time, metadata is not the event's content. */
const eventText = ({ sessionId, streamId, version, type, data, hash }: ExportLine) => JSON.stringify({ sessionId, streamId, version, type, data, hash });

const fx = importFixture(FIXTURE);
const read = fx.read;

describe('the frozen compatibility fixture of 770480d (test/fixtures/compat)', () => {
  it('holds every event type it was made with, and chronicle import takes it whole', () => {
    expect([...new Set(fixture.map((line) => line.type))].sort()).toEqual([...expected.eventTypes].sort());
    expect(fx.imported().stderr).not.toContain('refusing');
    expect(fx.imported()).toMatchObject({ code: 0, stdout: `imported ${fixture.length} event(s) of ${expected.sessions.length} stream(s); 0 already stored\n` });
  });

  describe.each(expected.sessions.map((session) => [session.sessionId, session] as const))('%s', (sessionId, session) => {
    it('is served at its head version with the display and context hashes 770480d served', async () => {
      const summary = await read(`/v1/sessions/${sessionId}`);
      expect(summary.status).toBe(200);
      expect(summary.body.version).toBe(session.headVersion);
      const display = await read(`/v1/sessions/${sessionId}/transcript?view=display`);
      expect(display.status).toBe(200);
      expect({ version: display.body.version, hash: display.body.hash, rows: display.body.messages.length }).toEqual({
        version: session.headVersion,
        hash: session.displayHash,
        rows: session.messageCount,
      });
      const context = await read(`/v1/sessions/${sessionId}/transcript?view=context`);
      expect(context.status).toBe(200);
      expect({ version: context.body.version, hash: context.body.hash }).toEqual({ version: session.headVersion, hash: session.contextHash });
      const markers = await read(`/v1/sessions/${sessionId}/markers`);
      expect(markers.body.items.map(({ runId, cause, status }: ExpectedSession['markers'][number]) => ({ runId, cause, status }))).toEqual(session.markers);
    });

    it('is served at every earlier version (time travel) with the hashes 770480d served', async () => {
      const served = [];
      for (const { version } of session.versions) {
        const display = await read(`/v1/sessions/${sessionId}/transcript?view=display&at=${version}`);
        const context = await read(`/v1/sessions/${sessionId}/transcript?view=context&at=${version}`);
        served.push({ version, display: display.body.hash, context: context.body.hash });
      }
      expect(served).toEqual(session.versions);
    });

    it('replays with chronicle replay to the same hashes', async () => {
      for (const [view, hash] of [['display', session.displayHash], ['context', session.contextHash]] as const) {
        const replay = await runIn(fx.app().database.url, ['replay', sessionId, '--view', view, '--json']);
        expect(replay.code).toBe(0);
        expect(JSON.parse(replay.stdout)).toMatchObject({ version: session.headVersion, hash });
      }
    });

    it('audits as a match: its chain verifies and every stored view equals the replay', async () => {
      const audit = await request(fx.app().server).post(`/v1/sessions/${sessionId}/audit`).set(bearer(KEYS.admin)).send({});
      expect(audit.status).toBe(200);
      expect(audit.body).toMatchObject({ sessionId, version: session.headVersion, match: true, chain: { ok: true } });
    });
  });

  itAuditsAndExportsAgain(() => fx.app().database.url, { lines: fixture, sessions: expected.sessions, lineText: eventText, madeBy: '770480d' });
});
