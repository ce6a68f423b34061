import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hermesLayout, type HermesLayout, writeJournal, writeSidecar, writeStateDb } from './hermes-webui.fixture.js';

export const T = 1_790_000_000;
export const WORKSPACE = '[Workspace::v1: /srv/app]\n';

/**
 * A hermes-webui install with one session per import rule, plus the bad inputs the import must report and
 * get past. Sessions: hx-plain (a finished tool-using turn), hx-crash (a turn that crashed mid-stream, its
 * journal holding tokens, a tool call and a torn last line), hx-workspace (agent rows re-stamped with
 * sub-second times and the workspace prefix, one newer CLI turn, compacted inactive rows), hx-parent and
 * hx-child (a compression), hx-edited (an edit: watermark and boundary over a state.db that still has the
 * replaced turn). Bad: broken.json, "bad id.json", state.db rows and a journal of sessions without a sidecar.
 */
export async function writeHermesScenarios(root: string): Promise<HermesLayout> {
  const layout = hermesLayout(root);
  const toolCall = { id: 'call_1', type: 'function', function: { name: 'list_files', arguments: '{"path":"~/.hermes"}' } };
  writeSidecar(layout, 'hx-plain', [
    { role: 'user', content: 'How do we move the chats over?', timestamp: T },
    { role: 'assistant', content: '', tool_calls: [toolCall], timestamp: T + 2 },
    { role: 'tool', content: 'sessions/ state.db', tool_call_id: 'call_1', name: 'list_files', timestamp: T + 3 },
    { role: 'assistant', content: 'Run chronicle import-hermes.', timestamp: T + 5, _turnDuration: 5.1, _usedModel: 'claude-sonnet' },
  ], { title: 'Plan the migration' });
  writeJournal(layout, 'hx-plain', 'run-plain', [
    { event: 'token', payload: { text: 'Run chronicle import-hermes.' }, createdAt: T + 4 },
    { event: 'done', payload: {}, createdAt: T + 5 },
  ]);

  writeSidecar(layout, 'hx-crash', [
    { role: 'user', content: 'Hi', timestamp: T + 100 },
    { role: 'assistant', content: 'Hello! What shall we look at?', timestamp: T + 101 },
  ], {
    title: 'Summarise the logs',
    active_stream_id: 'run-crash',
    pending_user_message: "Summarise yesterday's error logs",
    pending_attachments: ['errors.log'],
    pending_started_at: T + 200.5,
  });
  const readFile = { name: 'read_file', args: { path: '/var/log/errors.log' } };
  writeJournal(layout, 'hx-crash', 'run-crash', [
    { event: 'token', payload: { text: 'Reading errors.log. ' }, createdAt: T + 201 },
    { event: 'tool', payload: { event_type: 'tool.started', ...readFile, preview: 'errors.log' }, createdAt: T + 202 },
    { event: 'tool_complete', payload: { event_type: 'tool.completed', ...readFile, preview: 'errors.log (212 lines)', duration: 0.4, is_error: false }, createdAt: T + 203 },
    { event: 'token', payload: { text: 'Two timeouts and one disk-full error.' }, createdAt: T + 204 },
    { event: 'metering', payload: { input_tokens: 900, output_tokens: 40 }, createdAt: T + 205 },
  ], '{"version":1,"event_id":"run-crash:6","seq":6,"run_');

  writeSidecar(layout, 'hx-workspace', [
    { role: 'user', content: 'Why does the build fail?', timestamp: T + 300 },
    { role: 'assistant', content: 'The lockfile is stale.', timestamp: T + 305 },
  ], { title: 'Fix the build' });

  writeSidecar(layout, 'hx-parent', [
    { role: 'user', content: 'Walk me through the whole history.', timestamp: T + 500 },
    { role: 'assistant', content: 'It started with one sidecar per chat.', timestamp: T + 501 },
  ], { title: 'History', pre_compression_snapshot: true });
  writeSidecar(layout, 'hx-child', [
    { role: 'user', content: 'Continue from the summary.', timestamp: T + 601 },
    { role: 'assistant', content: 'Continuing: the journals came next.', timestamp: T + 602 },
  ], { title: 'History', parent_session_id: 'hx-parent', created_at: T + 600 });

  writeSidecar(layout, 'hx-edited', [
    { role: 'user', content: 'Name a colour.', timestamp: T + 700 },
    { role: 'assistant', content: 'Blue.', timestamp: T + 701 },
    { role: 'user', content: 'Name a fruit instead.', timestamp: T + 710 },
    { role: 'assistant', content: 'A pear.', timestamp: T + 711 },
  ], { title: 'Edited', truncation_watermark: T + 710, truncation_boundary: T + 701 });

  await writeStateDb(layout.stateDb, [
    { id: 1, sessionId: 'hx-plain', role: 'user', content: `${WORKSPACE}How do we move the chats over?`, timestamp: T + 0.125 },
    { id: 2, sessionId: 'hx-plain', role: 'assistant', content: '', toolCalls: [toolCall], timestamp: T + 2.25 },
    { id: 3, sessionId: 'hx-plain', role: 'tool', content: 'sessions/ state.db', toolCallId: 'call_1', toolName: 'list_files', timestamp: T + 3.5 },
    { id: 4, sessionId: 'hx-plain', role: 'assistant', content: 'Run chronicle import-hermes.', timestamp: T + 5.75 },
    { id: 5, sessionId: 'hx-crash', role: 'user', content: `${WORKSPACE}Hi`, timestamp: T + 100.2 },
    { id: 6, sessionId: 'hx-crash', role: 'assistant', content: 'Hello! What shall we look at?', timestamp: T + 101.4 },
    { id: 7, sessionId: 'hx-workspace', role: 'user', content: 'An old prompt, compacted away.', timestamp: T + 250.5, active: false },
    { id: 8, sessionId: 'hx-workspace', role: 'assistant', content: 'An old answer, compacted away.', timestamp: T + 251.5, active: false },
    { id: 10, sessionId: 'hx-workspace', role: 'user', content: `${WORKSPACE}Why does the build fail?`, timestamp: T + 300.25 },
    { id: 11, sessionId: 'hx-workspace', role: 'assistant', content: 'The lockfile is stale.', timestamp: T + 305.5 },
    { id: 12, sessionId: 'hx-workspace', role: 'user', content: `${WORKSPACE}And how do I fix it?`, timestamp: T + 400.125 },
    { id: 13, sessionId: 'hx-workspace', role: 'assistant', content: 'Run npm install and commit the lockfile.', timestamp: T + 402.75 },
    { id: 20, sessionId: 'hx-edited', role: 'user', content: `${WORKSPACE}Name a colour.`, timestamp: T + 700.1 },
    { id: 21, sessionId: 'hx-edited', role: 'assistant', content: 'Blue.', timestamp: T + 701.2 },
    { id: 22, sessionId: 'hx-edited', role: 'user', content: `${WORKSPACE}Name an animal.`, timestamp: T + 705.3 },
    { id: 23, sessionId: 'hx-edited', role: 'assistant', content: 'A heron.', timestamp: T + 706.4 },
    { id: 24, sessionId: 'hx-edited', role: 'user', content: `${WORKSPACE}Name a fruit instead.`, timestamp: T + 710.5 },
    { id: 25, sessionId: 'hx-edited', role: 'assistant', content: 'A pear.', timestamp: T + 711.6 },
    { id: 30, sessionId: 'hx-cli-only', role: 'user', content: 'A chat from the terminal.', timestamp: T + 800 },
  ]);

  writeFileSync(join(layout.sessions, 'broken.json'), '{"session_id": "broken", "messages": [{"role": "user", "con');
  writeSidecar(layout, 'bad id', [{ role: 'user', content: 'hello', timestamp: T + 900 }]);
  writeFileSync(join(layout.sessions, '_index.json'), JSON.stringify({ sessions: ['hx-plain', 'hx-crash'] }));
  writeFileSync(join(layout.sessions, 'hx-plain.json.bak'), '{}');
  writeJournal(layout, 'ghost', 'run-ghost', [{ event: 'token', payload: { text: 'nobody' }, createdAt: T + 950 }]);
  return layout;
}
