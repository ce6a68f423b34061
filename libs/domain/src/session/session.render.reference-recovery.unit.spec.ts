import { canonicalJson, evolveAll, initialSessionState, projectSession, render, type MessageRow, type SessionEvent } from '../index.js';
import {
  abandoned,
  assistant,
  interrupted,
  journal,
  observed,
  recorded,
  recoveredFromAgentStore,
  started,
  stateRow,
  submitted,
  user,
} from '../testing/session.fixtures.js';

/**
 * Recovery scenarios of the reference regression file (seed_test_session_lost_response_regression) that had no
 * pure counterpart yet, told as events → view. test/reference-scenarios.md maps every seed scenario to its test.
 * The reference's retry flags, counters and locks have no equivalent here: the marker is derived from the events
 * on every read, so these tests pin the view a set of events must produce.
 */
const T0 = 1_800_000_000;
const MARKER_KEYS = ['content', 'error', 'interruptionCause', 'role', 'timestamp', 'type'];

const markerRows = (rows: readonly MessageRow[]) => rows.filter((row) => row.type === 'interrupted' && row.error === true);
const contents = (rows: readonly MessageRow[]) => rows.map((row) => row.content);
const textOf = (row: MessageRow | undefined) => (typeof row?.content === 'string' ? row.content : '');

describe('a long session whose journal is not readable when the turn is interrupted (lost response, #2423/#2615)', () => {
  const earlier = Array.from({ length: 48 }, (_, i) => [user(`question ${i}`, T0 - 500 + 2 * i), assistant(`answer ${i}`, T0 - 499 + 2 * i)]).flat();
  const prompt = '[IMPORTANT: background poll. Carry on with the earlier request.]';
  const firstRead: SessionEvent[] = [started('s1', T0 - 1000), recorded(...earlier), submitted('poll-run', prompt, T0), interrupted('poll-run', T0 + 45)];
  const lateJournal: SessionEvent[] = [
    journal('poll-run', 1, 'token', { text: 'Looking at the open pull requests first.' }, T0 + 2),
    journal('poll-run', 2, 'tool', { name: 'terminal', preview: 'gh pr list --state open', args: { command: 'gh pr list --state open' } }, T0 + 3),
    journal('poll-run', 3, 'tool_complete', { name: 'terminal', duration: 0.8, is_error: false }, T0 + 4),
    journal('poll-run', 4, 'token', { text: ' The scan of open pull requests is done.' }, T0 + 5),
  ];

  it('first shows a marker that waits for the journal, never the permanent "no output" wording, and no pending turn', () => {
    const view = projectSession(firstRead);
    const [marker] = markerRows(view.display);
    expect(view.display.at(-1)).toBe(marker);
    expect(textOf(marker)).toContain('Recovering the partial output from the run journal');
    expect(textOf(marker)).not.toContain('no agent output was recovered');
    expect(view.markers.map((m) => m.status)).toEqual(['pending_journal']);
    expect(view.pendingTurn).toBeNull();
    expect(view.display.at(-2)).toMatchObject({ role: 'user', content: prompt, recovered: true });
  });

  it('once the journal is visible, promotes the same marker and threads the text and the tool card above it', () => {
    const view = projectSession([...firstRead, ...lateJournal]);
    const markers = markerRows(view.display);
    expect(markers).toHaveLength(1);
    const markerIndex = view.display.indexOf(markers[0]!);
    expect(textOf(markers[0])).toContain('recovered from the run journal');
    expect(view.display.some((row) => textOf(row).includes('no agent output was recovered'))).toBe(false);

    const recoveredAbove = view.display.slice(0, markerIndex).filter((row) => row.recoveredFromRunJournal === true);
    const recoveredText = recoveredAbove.map(textOf).join(' ');
    expect(recoveredText).toContain('Looking at the open pull requests first.');
    expect(recoveredText).toContain('The scan of open pull requests is done.');
    expect(view.display.slice(markerIndex + 1)).toEqual([]);

    expect(view.toolCards.at(-1)).toMatchObject({ name: 'terminal', done: true, isError: false, recoveredRunId: 'poll-run' });
    const cardRow = view.display[view.toolCards.at(-1)!.assistantMessageIndex!];
    expect(cardRow?.recoveredFromRunJournal).toBe(true);
    expect(view.markers).toEqual([expect.objectContaining({ status: 'recovered', messageIndex: markerIndex })]);
  });

  it('keeps no retry bookkeeping on the marker row: it is the plain §3.4 shape, before and after promotion', () => {
    for (const events of [firstRead, [...firstRead, ...lateJournal]]) {
      expect(Object.keys(markerRows(projectSession(events).display)[0]!).sort()).toEqual(MARKER_KEYS);
    }
  });
});

describe('reads of a session whose marker waits for its journal (concurrent lazy retry)', () => {
  it('never change the state: any number of renders of one state give the same bytes and leave it as it was', () => {
    const state = evolveAll(initialSessionState(), [started(), submitted('r1', 'question', T0), interrupted('r1', T0 + 40)]);
    const before = canonicalJson(state);
    const renders = Array.from({ length: 5 }, () => canonicalJson(render(state)));
    expect(new Set(renders).size).toBe(1);
    expect(canonicalJson(state)).toBe(before);
  });
});

describe('a journal that is still arriving (nothing readable yet)', () => {
  const events: SessionEvent[] = [started(), recorded(user('q', T0 - 10), assistant('a', T0 - 9)), submitted('r1', 'next', T0), interrupted('r1', T0 + 40)];

  it('keeps the marker pending with the retry wording however many reads come: there is no budget to consume', () => {
    const reads = Array.from({ length: 20 }, () => projectSession(events));
    for (const view of reads) {
      expect(view.markers.map((m) => m.status)).toEqual(['pending_journal']);
      expect(textOf(markerRows(view.display)[0])).toContain('Recovering the partial output from the run journal — reload this session to retry.');
    }
    expect(new Set(reads.map((view) => canonicalJson(view))).size).toBe(1);
  });
});

describe('a marker whose journal, read later, turns out sealed and empty (only stream_end)', () => {
  const events: SessionEvent[] = [
    started(),
    recorded(user('q', T0 - 10), assistant('a', T0 - 9)),
    submitted('r1', 'next', T0),
    interrupted('r1', T0 + 40),
    journal('r1', 1, 'stream_end', {}, T0 + 1),
  ];

  // D1 (fixed): a journal closed only by `stream_end` settles the turn only with visible output
  // (the one marker rule, `deriveJournalOutcome`); without output it keeps a `no_output` marker.
  it('keeps exactly one decided marker (not pending) as the last row, with no recovered rows', () => {
    const view = projectSession(events);
    const markers = markerRows(view.display);
    expect(markers).toHaveLength(1);
    expect(view.display.at(-1)).toBe(markers[0]);
    expect(Object.keys(markers[0]!).sort()).toEqual(MARKER_KEYS);
    expect(['no_output', 'neutral']).toContain(view.markers[0]?.status);
    expect(view.display.some((row) => row.recoveredFromRunJournal)).toBe(false);
  });
});

describe('a completed journal settles the turn only with visible output (D1)', () => {
  const head: SessionEvent[] = [started(), recorded(user('q', T0 - 10), assistant('a', T0 - 9)), submitted('r1', 'next', T0)];
  const statusOf = (events: SessionEvent[]) => projectSession(events).markers.map((m) => m.status);

  it('derives no_output whether stream_end arrives before or after the interruption', () => {
    const early = projectSession([...head, journal('r1', 1, 'stream_end', {}, T0 + 1), interrupted('r1', T0 + 40)]);
    const late = projectSession([...head, interrupted('r1', T0 + 40), journal('r1', 1, 'stream_end', {}, T0 + 1)]);
    expect(canonicalJson(early)).toBe(canonicalJson(late));
    expect(early.markers.map((m) => m.status)).toEqual(['no_output']);
  });

  it('keeps the marker pending while a seq before the completed terminal event is missing', () => {
    expect(statusOf([...head, interrupted('r1', T0 + 40), journal('r1', 2, 'stream_end', {}, T0 + 2)])).toEqual(['pending_journal']);
  });

  it('still settles the turn, with no marker, once the completed journal has output', () => {
    const events = [...head, interrupted('r1', T0 + 40), journal('r1', 2, 'done', {}, T0 + 2), journal('r1', 1, 'token', { text: 'answer' }, T0 + 1)];
    const view = projectSession(events);
    expect(view.markers).toEqual([]);
    expect(view.display.at(-1)).toMatchObject({ role: 'assistant', content: 'answer', recoveredFromRunJournal: true });
  });
});

describe('a done journal settles the turn with or without visible output (issue 11, architecture "Markers are derived")', () => {
  const head: SessionEvent[] = [started(), recorded(user('q', T0 - 10), assistant('a', T0 - 9)), submitted('r1', 'next', T0)];

  it('settles a whole done-only journal (no marker) whether it arrives before or after the interruption', () => {
    const early = projectSession([...head, journal('r1', 1, 'done', {}, T0 + 1), interrupted('r1', T0 + 40)]);
    const late = projectSession([...head, interrupted('r1', T0 + 40), journal('r1', 1, 'done', {}, T0 + 1)]);
    expect(canonicalJson(early)).toBe(canonicalJson(late));
    expect(late.markers).toEqual([]);
    expect(markerRows(late.display)).toHaveLength(0);
    expect(late.display.at(-1)).toMatchObject({ role: 'user', content: 'next' });
    expect(late.summary.status).toBe('active');
  });

  it('keeps a done behind a missing seq 1 pending (recovering), neutral once given up, and settles when seq 1 arrives', () => {
    const gap = [...head, interrupted('r1', T0 + 40), journal('r1', 2, 'done', {}, T0 + 2)];
    const pending = projectSession(gap);
    expect(pending.markers.map((m) => m.status)).toEqual(['pending_journal']);
    expect(pending.summary.status).toBe('recovering');
    const given = [...gap, abandoned('r1', T0 + 40 + 86_400)];
    expect(projectSession(given).markers.map((m) => m.status)).toEqual(['neutral']);
    const whole = projectSession([...given, journal('r1', 1, 'metering', {}, T0 + 1)]);
    expect(whole.markers).toEqual([]);
    expect(markerRows(whole.display)).toHaveLength(0);
    expect(whole.summary.status).toBe('active');
  });
});

describe('a marker whose journal ends without output on a semantic terminal event (cancel)', () => {
  const events: SessionEvent[] = [
    started(),
    submitted('r1', 'next', T0),
    interrupted('r1', T0 + 40),
    journal('r1', 1, 'cancel', {}, T0 + 1),
    journal('r1', 2, 'stream_end', {}, T0 + 2),
  ];

  it('is decided at once: one marker, no retry metadata, no recovered rows, and it stays so when recovery is given up', () => {
    for (const view of [projectSession(events), projectSession([...events, abandoned('r1', T0 + 40 + 86_400)])]) {
      const markers = markerRows(view.display);
      expect(markers).toHaveLength(1);
      expect(Object.keys(markers[0]!).sort()).toEqual(MARKER_KEYS);
      expect(view.markers.map((m) => m.status)).toEqual(['no_output']);
      expect(view.display.some((row) => row.recoveredFromRunJournal)).toBe(false);
    }
  });
});

describe('a marker given up after 86,400 s', () => {
  it('turns neutral with no recovered rows and no retry metadata', () => {
    const view = projectSession([started(), submitted('r1', 'q', T0), interrupted('r1', T0 + 40), abandoned('r1', T0 + 40 + 86_400)]);
    const [marker] = markerRows(view.display);
    expect(textOf(marker)).toMatch(/before this turn finished\..*Partial output may have been lost\.$/su);
    expect(Object.keys(marker!).sort()).toEqual(MARKER_KEYS);
    expect(view.display.some((row) => row.recoveredFromRunJournal)).toBe(false);
  });
});

describe('an agent store ahead of a dead turn (state.db self-heal, #5053)', () => {
  const uiRows = [user('old question', 100), assistant('old answer', 101)];
  const agentRows = [
    stateRow(1, user('old question', 100)),
    stateRow(2, assistant('old answer', 101)),
    stateRow(3, user('new request', 102)),
    stateRow(4, assistant('visible text that disappeared', 103)),
    stateRow(5, { role: 'tool', content: 'tool result', timestamp: 104 }),
    stateRow(6, assistant('latest live progress', 105)),
  ];
  const pending: SessionEvent[] = [started('s1', 50), recorded(...uiRows), submitted('r1', 'new request', 102), observed(agentRows, 106)];

  it('while the turn is pending (a live worker owns its write-back), holds the newer agent rows back', () => {
    const view = projectSession(pending);
    expect(contents(view.display)).toEqual(['old question', 'old answer', 'new request']);
    expect(view.pendingTurn).toMatchObject({ runId: 'r1', text: 'new request' });
  });

  it('once recovered from the agent store, shows every agent row, feeds them to the context, and clears the pending turn', () => {
    const view = projectSession([...pending, recoveredFromAgentStore('r1', 140)]);
    expect(contents(view.display)).toEqual(agentRows.map((row) => row.content));
    expect(view.context.at(-1)?.content).toBe('latest live progress');
    expect(view.pendingTurn).toBeNull();
    expect(view.markers).toEqual([]);
  });
});

describe('a pending image turn', () => {
  const prompt = 'Describe the attached image';
  const attachment = { name: 'sample.png', mime: 'image/png', isImage: true };
  const imagePart = { type: 'image_url', imageUrl: { url: 'data:image/png;base64,YWJj' } };
  const note = 'Agent-only recall note';
  const earlier = [user('old question', T0 - 2), assistant('old answer', T0 - 1)];
  const base: SessionEvent[] = [started('s1', T0 - 100), recorded(...earlier), submitted('img-run', prompt, T0, [attachment])];
  const submittedRows = (rows: readonly MessageRow[]) => rows.filter((row) => row.role === 'user' && row.content === prompt);

  describe('whose agent row (text, image and an agent-only note) and answer are in the agent store', () => {
    const agentPrompt = stateRow(3, { role: 'user', content: [{ type: 'text', text: prompt }, imagePart, { type: 'text', text: note }], timestamp: T0 });
    const tail = stateRow(4, assistant('recovered assistant tail', T0 + 1));
    const events = [
      ...base,
      observed([stateRow(1, earlier[0]!), stateRow(2, earlier[1]!), agentPrompt, tail], T0 + 40),
      recoveredFromAgentStore('img-run', T0 + 45),
    ];

    it('adopts the agent rows: the answer ends the transcript, no marker, and the context keeps the agent-only note', () => {
      const view = projectSession(events);
      expect(view.display.at(-1)).toMatchObject({ role: 'assistant', content: 'recovered assistant tail', timestamp: T0 + 1 });
      expect(view.markers).toEqual([]);
      const contextPrompts = view.context.filter((row) => row.role === 'user' && row.timestamp === T0);
      expect(contextPrompts).toHaveLength(1);
      expect(contextPrompts[0]?.content).toEqual(agentPrompt.content);
    });

    // D3 (fixed): the agent's multipart row mirrors the submitted prompt (prompt-mirror.ts): the display shows the
    // submitted row, the context the agent row's content.
    it('shows exactly one submitted prompt row, with its time and attachments, and never the agent-only note', () => {
      const view = projectSession(events);
      const rows = submittedRows(view.display);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ timestamp: T0, attachments: [attachment] });
      expect(JSON.stringify(view.display)).not.toContain(note);
    });
  });

  describe('whose agent store holds only the image prompt row, with the output in the journal', () => {
    const agentPrompt = stateRow(3, { role: 'user', content: [{ type: 'text', text: prompt }, imagePart], timestamp: T0 });
    const events = [
      ...base,
      observed([stateRow(1, earlier[0]!), stateRow(2, earlier[1]!), agentPrompt], T0 + 40),
      journal('img-run', 1, 'token', { text: 'Recovered partial text.' }, T0 + 3),
      interrupted('img-run', T0 + 45),
    ];

    it('recovers the journal text above one marker with the recovered wording', () => {
      const view = projectSession(events);
      const markers = markerRows(view.display);
      expect(markers).toHaveLength(1);
      expect(textOf(markers[0])).toContain('**Response interrupted.**');
      expect(textOf(markers[0])).toContain('partial output above was recovered');
      expect(view.display.some((row) => row.recoveredFromRunJournal === true && textOf(row).includes('Recovered partial text.'))).toBe(true);
      expect(view.display.at(-1)).toBe(markers[0]);
    });

    // D4 (fixed): the agent's image row mirrors the recovered prompt row (prompt-mirror.ts), so it is not adopted
    // at the interruption: the display shows the recovered row, the context holds the prompt once.
    it('shows exactly one submitted prompt row, and it carries the attachments', () => {
      const view = projectSession(events);
      const rows = submittedRows(view.display);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ attachments: [attachment], recovered: true });
      expect(view.context.filter((row) => row.role === 'user' && JSON.stringify(row.content).includes(prompt))).toHaveLength(1);
    });
  });
});
