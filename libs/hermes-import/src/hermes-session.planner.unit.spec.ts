import { KEY } from './hermes-import.keys.js';
import { planSession, type SessionInput } from './hermes-session.planner.js';
import { planSidecar, type SidecarPlan } from './hermes-sidecar.mapper.js';

const sidecarOf = (messages: unknown[], extra: Record<string, unknown> = {}): SidecarPlan => {
  const result = planSidecar('s1.json', { session_id: 's1', created_at: 100, messages, ...extra });
  if (!('plan' in result)) throw new Error(result.problem);
  return result.plan;
};
const input = (sidecar: SidecarPlan): SessionInput => ({ sidecar, stateRows: [], journals: [], child: null });
const rows = [{ role: 'user', content: 'a', timestamp: 100 }, { role: 'assistant', content: 'b', timestamp: 101 }];
const types = (steps: { command: { type: string } }[]) => steps.map((step) => step.command.type);

describe('planning a session', () => {
  it('records the rows before the cut, truncates, then records the rows after it', () => {
    const sidecar = sidecarOf([...rows, { role: 'user', content: 'c', timestamp: 110 }], { truncation_watermark: 110, truncation_boundary: 101 });
    const { steps } = planSession(input(sidecar), new Set());
    expect(types(steps)).toEqual(['StartSession', 'RecordMessages', 'TruncateTranscript', 'RecordMessages']);
    expect(steps[1].command.data).toEqual({ rows: sidecar.rows.slice(0, 2) });
  });

  it('appends only the rows a sidecar gained since its last import', () => {
    const first = sidecarOf(rows);
    const stored = new Set([KEY.session, KEY.rows(0, 2, first.rows)]);
    const grown = sidecarOf([...rows, { role: 'user', content: 'c', timestamp: 110 }]);
    const { steps, skipped } = planSession(input(grown), stored);
    expect(steps).toEqual([{ key: KEY.rows(2, 3, grown.rows), command: { type: 'RecordMessages', data: { rows: [grown.rows[2]] } } }]);
    expect(skipped).toEqual([]);
  });

  it('reports, and does not re-import, sidecar rows rewritten since their import', () => {
    const stored = new Set([KEY.session, KEY.rows(0, 2, sidecarOf(rows).rows)]);
    const edited = sidecarOf([rows[0], { role: 'assistant', content: 'changed', timestamp: 101 }]);
    const { steps, skipped } = planSession(input(edited), stored);
    expect(steps).toEqual([]);
    expect(skipped).toEqual([{ item: 's1.json', reason: 'rows 0..1 changed since they were imported; the sidecar rows were not imported again' }]);
  });

  it('splits a long journal into commands of at most 1000 events, and archives a compression parent last', () => {
    const events = Array.from({ length: 2500 }, (_, i) => ({ seq: i + 1, event: 'token', payload: { text: 'x' }, createdAt: 200 + i }));
    const parent = sidecarOf(rows, { pre_compression_snapshot: true });
    const { steps } = planSession({ sidecar: parent, stateRows: [], journals: [{ runId: 'r1', events }], child: { sessionId: 's2', at: 300 } }, new Set());
    expect(steps.map((step) => step.key)).toEqual([
      KEY.session, KEY.rows(0, 2, parent.rows), 'journal:r1:1-1000', 'journal:r1:1001-2000', 'journal:r1:2001-2500', 'sidecar:compressed:s2',
    ]);
    expect(steps[5].command).toEqual({ type: 'CompressSession', data: { childSessionId: 's2', at: 300 } });
  });
});
