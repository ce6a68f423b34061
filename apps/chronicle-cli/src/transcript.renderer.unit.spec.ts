import { type MessageRow, projectSession, renderTranscript, type ToolCard } from '#domain';
import { formatValue, renderAuditTotals, renderSessionAudit } from './audit-report.renderer.js';
import { goldenEvents, goldenNames } from './cli-test.fixture.js';
import { contentText, formatTime, renderMessage, renderReadable, renderToolCard } from './transcript.renderer.js';

const card: ToolCard = {
  name: 'read_file',
  preview: 'src/app.ts',
  args: { path: 'src/app.ts' },
  done: true,
  isError: false,
  duration: 1.25,
  assistantMessageIndex: 1,
  recoveredFromRunJournal: true,
  recoveredRunId: 'run-7',
};

describe('readable transcript', () => {
  it('formats epoch seconds as UTC and content parts as text', () => {
    expect(formatTime(1780000100.75)).toBe('2026-05-28 20:28:20Z');
    expect(formatTime(null)).toBe('-');
    expect(contentText([{ type: 'text', text: 'look:' }, { type: 'image_url', imageUrl: { url: 'https://x/y.png' } }, { type: 'audio' }])).toBe(
      'look:\n[image https://x/y.png]\n[audio]',
    );
  });

  it('renders a message with role, time, flags, reasoning, content and tool calls', () => {
    const row: MessageRow = {
      role: 'assistant',
      content: 'line 1\nline 2',
      timestamp: 1780000105,
      reasoning: 'think',
      partial: true,
      recoveredFromRunJournal: true,
      recoveredRunId: 'run-3',
      toolCalls: [{ id: 'c1', type: 'function', function: { name: 'grep', arguments: '{"q":"x"}' } }],
    };
    expect(renderMessage(row, 4)).toEqual([
      '#5  assistant · 2026-05-28 20:28:25Z  [partial, recovered from run journal run-3]',
      '    (reasoning) think',
      '    line 1',
      '    line 2',
      '    -> grep({"q":"x"})',
    ]);
    const marker: MessageRow = { role: 'assistant', type: 'interrupted', interruptionCause: 'process_restart', content: '**Response interrupted.**' };
    expect(renderMessage(marker, 0)[0]).toBe('#1  -- marker: response interrupted (process_restart) -- · -');
    expect(renderMessage({ role: 'user' }, 0)[1]).toBe('    (no content)');
  });

  it('renders tool cards with state, duration, position, args and origin', () => {
    expect(renderToolCard(card)).toBe('  [ok] read_file 1.3s after #2 - src/app.ts  (path=src/app.ts) [recovered from run-7]');
    expect(renderToolCard({ ...card, done: false, duration: null, assistantMessageIndex: null, args: {}, recoveredFromRunJournal: false })).toBe(
      '  [running] read_file - src/app.ts',
    );
  });

  it('renders every golden session with its header, hash and one block per message', () => {
    for (const name of goldenNames()) {
      const view = projectSession(goldenEvents(name));
      const { messages, toolCards, hash } = renderTranscript(view, 'display');
      const text = renderReadable({ sessionId: name, version: 9, view: 'display', messages, toolCards, hash }, view.markers);
      expect(text.split('\n').slice(0, 2)).toEqual([
        `Session ${name} · version 9 · display view · ${messages.length} messages · ${toolCards.length} tool cards`,
        `hash ${hash}`,
      ]);
      expect(text.match(/^#\d+ {2}/gm)).toHaveLength(messages.length);
      expect(text.includes('\nMarkers\n')).toBe(view.markers.length > 0);
      expect(text.endsWith('\n')).toBe(true);
    }
  });
});

describe('readable audit', () => {
  it('shows the verdict, the chain, the hashes and every difference', () => {
    const text = renderSessionAudit({
      sessionId: 's',
      version: 7,
      storedHash: 'aa',
      replayedHash: 'bb',
      match: false,
      chain: { ok: false, firstBrokenVersion: 3 },
      differences: [{ path: 'summary.title', stored: 'x', replayed: undefined }],
    });
    expect(text).toBe(
      [
        's · version 7 · MISMATCH'.replace(/^/, 'session '),
        '  chain: BROKEN at version 3',
        '  display hash: stored aa, replayed bb',
        '  differences (1):',
        '    summary.title',
        '      stored:   "x"',
        '      replayed: (absent)',
        '',
      ].join('\n'),
    );
    expect(formatValue('y'.repeat(500))).toHaveLength(120);
    expect(renderAuditTotals({ sessions: 3, mismatches: 0, eventsReplayed: 300, seconds: 2 })).toBe(
      'audited 3 session(s), 300 event(s) replayed in 2.0s (150 events/s): every session matches\n',
    );
  });
});
