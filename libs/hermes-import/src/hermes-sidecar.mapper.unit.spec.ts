import { mapSidecarRow } from './hermes-row.mapper.js';
import { planSidecar } from './hermes-sidecar.mapper.js';
import { parseRunJournal } from './run-journal.reader.js';

const plan = (sidecar: Record<string, unknown>, file = 's1.json') => {
  const result = planSidecar(file, JSON.stringify({ session_id: 's1', ...sidecar }));
  if (!('plan' in result)) throw new Error(result.problem);
  return result.plan;
};

describe('a sidecar row', () => {
  it('maps the snake_case and underscored fields to the contract row', () => {
    const raw = {
      role: 'assistant', content: 'partial', timestamp: 10.5, _error: true, tool_calls: [{ id: 'c1' }], _recovered: true, api_content: 'bytes',
      _partial: true, _partial_tool_calls: [{ id: 'c2' }], _recovered_from_run_journal: true, _recovered_stream_id: 'run-1', _recovered_event_id: 'run-1:3',
      type: 'interrupted', interruption_cause: 'process_restart', _state_db_row_id: 7, _row_id: '7', _turnDuration: 2, _anchor_stream_id: 'run-1',
      _pending_journal_recovery: true, _active_turn_token: 'run-1:10.5',
    };
    expect(mapSidecarRow(raw)).toEqual({
      row: {
        role: 'assistant', content: 'partial', timestamp: 10.5, error: true, toolCalls: [{ id: 'c1' }], recovered: true, apiContent: 'bytes',
        partial: true, partialToolCalls: [{ id: 'c2' }], recoveredFromRunJournal: true, recoveredRunId: 'run-1', recoveredEventId: 'run-1:3',
        type: 'interrupted', interruptionCause: 'process_restart', rowId: 7, meta: { turnDuration: 2, anchorStreamId: 'run-1' },
      },
    });
  });

  it('carries no row id when two aliases disagree', () => {
    expect(mapSidecarRow({ role: 'user', content: 'x', _row_id: 1, state_db_row_id: 2 })).toEqual({ row: { role: 'user', content: 'x' } });
  });

  it('renames an OpenAI image_url part to the contract imageUrl', () => {
    const content = [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'file:///a.png' } }];
    expect(mapSidecarRow({ role: 'user', content })).toEqual({ row: { role: 'user', content: [content[0], { type: 'image_url', imageUrl: { url: 'file:///a.png' } }] } });
  });

  it('is left out, with the reason, when its role is not the contract’s', () => {
    expect(plan({ messages: [{ role: 'bot', content: 'x' }, { role: 'user', content: 'y' }] })).toMatchObject({
      rows: [{ role: 'user', content: 'y' }],
      skipped: [{ item: 's1.json messages[0]', reason: 'role "bot" is not user, assistant, tool or system; row left out' }],
    });
  });
});

describe('a sidecar', () => {
  const rows = [{ role: 'user', content: 'a', timestamp: 100 }, { role: 'assistant', content: 'b', timestamp: 101 }, { role: 'user', content: 'c', timestamp: 110 }];

  it('cuts the rows at the truncation boundary, not at the advanced watermark', () => {
    expect(plan({ messages: rows, truncation_watermark: 110, truncation_boundary: 101 }).truncation).toEqual({ keepCount: 2, reason: 'edit', at: 101 });
  });

  it('reads the 0.0 watermark as a clear before every row', () => {
    expect(plan({ messages: rows, truncation_watermark: 0, truncation_boundary: 0 }).truncation).toEqual({ keepCount: 0, reason: 'clear', at: 0 });
  });

  it('makes the pending prompt a submission, with a run id from its start when no stream id was saved', () => {
    const pending = plan({ messages: rows, pending_user_message: 'next?', pending_started_at: 120.5, pending_user_source: 'webui', pending_attachments: ['a.txt'] }).pending;
    expect(pending).toEqual({ runId: 'hermes-pending-s1-120', text: 'next?', attachments: ['a.txt'], source: null, submittedAt: 120.5 });
  });

  it('is refused when its session id does not match its file name', () => {
    expect(planSidecar('other.json', { session_id: 's1', messages: [] })).toEqual({ problem: 'session_id "s1" does not match the file name' });
  });
});

describe('a run journal', () => {
  it('keeps every well-formed line and names each malformed one', () => {
    const good = (seq: number) => JSON.stringify({ seq, event: 'token', type: 'token', created_at: seq, payload: { text: `t${seq}` } });
    const text = [good(1), '{"seq": 2, "event": "tok', '', JSON.stringify({ seq: 0, event: 'token', created_at: 1 }), good(3)].join('\n');
    const parsed = parseRunJournal('s1/run.jsonl', text);
    expect(parsed.events.map((e) => e.seq)).toEqual([1, 3]);
    expect(parsed.events[0]).toEqual({ seq: 1, event: 'token', payload: { text: 't1' }, createdAt: 1 });
    expect(parsed.skipped).toEqual([
      { item: 's1/run.jsonl line 2', reason: 'malformed line: not JSON' },
      { item: 's1/run.jsonl line 4', reason: 'malformed line: seq is not an integer ≥ 1' },
    ]);
  });
});
