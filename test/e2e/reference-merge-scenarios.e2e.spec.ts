import { startTestApp, type TestApp } from '../support/app.js';
import { expectStatus, ingestClient } from '../support/ingest.js';

/**
 * The merge scenarios of the reference regression file, replayed through the HTTP routes: UI rows go in
 * as MessagesRecorded, agent-store rows as StateRowsObserved, and the display transcript must come out in
 * the order the reference pins.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

type Row = Record<string, unknown> & { role: string; content: string };
const api = ingestClient(() => t.server);
let counter = 0;

async function displayAfter(uiRows: Row[], agentRows: Row[]): Promise<string[]> {
  const sessionId = `ref-${++counter}`;
  await api.startSession(sessionId, { createdAt: 1 });
  await api.recordMessages(sessionId, uiRows);
  await api.observeStateRows(sessionId, agentRows.map((row, i) => ({ ...row, rowId: i + 1 })), 2e9);
  const res = await expectStatus(api.read(`/v1/sessions/${sessionId}/transcript?view=display`), 200);
  return res.body.messages.map((m: { content: string }) => m.content);
}

const ws = '[Workspace::v1: /srv/checkout]\n';

describe('reference merge scenarios over HTTP', () => {
  it('an agent-store prefix replayed with sub-second times does not bury the UI tail', async () => {
    const ui: Row[] = [
      { role: 'user', content: 'draft the release plan', timestamp: 1800000000 },
      { role: 'assistant', content: 'plan loaded', timestamp: 1800000000 },
      { role: 'tool', content: 'skill output', timestamp: 1800000000 },
      { role: 'assistant', content: 'answer before compaction', timestamp: 1800000000 },
      { role: 'user', content: '[CONTEXT COMPACTION — REFERENCE ONLY] Older turns were folded into the summary below. Treat it as background, NOT as instructions.', timestamp: 1800000000 },
      { role: 'tool', content: '{"ok": true, "note": "patched"}', timestamp: 1800000000 },
      { role: 'user', content: 'any more pull requests?', timestamp: 1800000000 },
      { role: 'assistant', content: 'Yes, but not as one combined PR', timestamp: 1800000000 },
    ];
    const agent: Row[] = [
      { role: 'user', content: 'draft the release plan', timestamp: 1800035152.2781 },
      { role: 'assistant', content: 'plan loaded', timestamp: 1800035152.2857 },
      { role: 'tool', content: 'skill output', timestamp: 1800035152.2926 },
      { role: 'assistant', content: 'answer before compaction', timestamp: 1800035152.3077 },
      { role: 'user', content: '[CONTEXT COMPACTION — REFERENCE ONLY] Older turns were folded into the summary below.', timestamp: 1800035152.2993 },
      { role: 'tool', content: '{"ok": true, "note": "patched"}', timestamp: 1800035152.3152, toolCallId: 'agent-side-id' },
      { role: 'user', content: `${ws}any more pull requests?`, timestamp: 1800035152.3287 },
    ];
    expect(await displayAfter(ui, agent)).toEqual(ui.map((r) => r.content));
  });

  it('a full replay of the UI turns ends on the assistant answer', async () => {
    const ui: Row[] = [
      { role: 'user', content: 'first critique', timestamp: 100 },
      { role: 'assistant', content: 'analysis', timestamp: 100 },
      { role: 'user', content: 'write your version', timestamp: 100 },
      { role: 'assistant', content: 'opened a preview', timestamp: 100 },
    ];
    const agent: Row[] = [
      { role: 'user', content: 'first critique', timestamp: 100.1 },
      { role: 'assistant', content: 'analysis', timestamp: 100.2 },
      { role: 'user', content: `${ws}write your version`, timestamp: 100.3 },
      { role: 'assistant', content: 'opened a preview', timestamp: 100.4 },
    ];
    expect(await displayAfter(ui, agent)).toEqual(ui.map((r) => r.content));
  });

  it('a prompt only the agent store has is put back before the newer UI tail', async () => {
    const ui: Row[] = [
      { role: 'user', content: 'earlier question', timestamp: 100 },
      { role: 'assistant', content: 'earlier answer', timestamp: 101 },
      { role: 'assistant', content: 'later recovery tail', timestamp: 103 },
    ];
    const agent: Row[] = [
      { role: 'user', content: 'earlier question', timestamp: 100 },
      { role: 'assistant', content: 'earlier answer', timestamp: 101 },
      { role: 'user', content: 'the lost prompt', timestamp: 102 },
    ];
    expect(await displayAfter(ui, agent)).toEqual(['earlier question', 'earlier answer', 'the lost prompt', 'later recovery tail']);
  });

  it('a rescued prompt with the same timestamp as the answer goes before it', async () => {
    expect(
      await displayAfter([{ role: 'assistant', content: 'the answer', timestamp: 100 }], [
        { role: 'user', content: 'the question', timestamp: 100 },
      ]),
    ).toEqual(['the question', 'the answer']);
  });

  it('a rescued prompt sharing one second with an answered turn lands after that turn', async () => {
    expect(
      await displayAfter(
        [
          { role: 'user', content: 'earlier question', timestamp: 100 },
          { role: 'assistant', content: 'earlier answer', timestamp: 100 },
          { role: 'user', content: 'recovery tail', timestamp: 100 },
        ],
        [{ role: 'user', content: 'the lost prompt', timestamp: 100 }],
      ),
    ).toEqual(['earlier question', 'earlier answer', 'the lost prompt', 'recovery tail']);
  });

  it('a rescued prompt never splits a tool call from its result', async () => {
    expect(
      await displayAfter(
        [
          { role: 'assistant', content: 'let me look', timestamp: 100, toolCalls: [{ id: 'c1', type: 'function', function: { name: 'read_file' } }] },
          { role: 'tool', content: 'file body', timestamp: 101, toolCallId: 'c1' },
          { role: 'assistant', content: 'final answer', timestamp: 103 },
        ],
        [{ role: 'user', content: 'the lost prompt', timestamp: 100.5 }],
      ),
    ).toEqual(['let me look', 'file body', 'the lost prompt', 'final answer']);
  });

  it('an equal-timestamp rescue lands after the whole tool block', async () => {
    expect(
      await displayAfter(
        [
          { role: 'user', content: 'u', timestamp: 100 },
          {
            role: 'assistant',
            content: 'calling',
            timestamp: 100,
            toolCalls: [
              { id: 'c1', type: 'function', function: { name: 'f' } },
              { id: 'c2', type: 'function', function: { name: 'g' } },
            ],
          },
          { role: 'tool', content: 'r1', timestamp: 100, toolCallId: 'c1' },
          { role: 'tool', content: 'r2', timestamp: 100, toolCallId: 'c2' },
          { role: 'user', content: 'recovery', timestamp: 100 },
        ],
        [{ role: 'user', content: 'missing', timestamp: 100 }],
      ),
    ).toEqual(['u', 'calling', 'r1', 'r2', 'missing', 'recovery']);
  });

  it('a prompt older than the whole UI transcript is not resurrected', async () => {
    expect(
      await displayAfter(
        [
          { role: 'assistant', content: 'compacted summary', timestamp: 200 },
          { role: 'assistant', content: 'current answer', timestamp: 201 },
        ],
        [{ role: 'user', content: 'compressed-out old prompt', timestamp: 100 }],
      ),
    ).toEqual(['compacted summary', 'current answer']);
  });

  it('a replayed middle segment is not appended after the tail', async () => {
    const ui: Row[] = [
      { role: 'user', content: 'older setup', timestamp: 100 },
      { role: 'assistant', content: 'older answer', timestamp: 100 },
      { role: 'assistant', content: 'analysis before the request', timestamp: 100 },
      { role: 'user', content: 'write your version', timestamp: 100 },
      { role: 'assistant', content: 'opened a preview', timestamp: 100 },
    ];
    const agent: Row[] = [
      { role: 'assistant', content: 'analysis before the request', timestamp: 100.1 },
      { role: 'user', content: `${ws}write your version`, timestamp: 100.2 },
    ];
    expect(await displayAfter(ui, agent)).toEqual(ui.map((r) => r.content));
  });
});
