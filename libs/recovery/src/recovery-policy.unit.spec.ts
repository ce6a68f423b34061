import { decide, evolveAll, initialSessionState, render, type SessionEvent, type SessionState, type StateRow } from '#domain';
import { checkAgentStore } from './agent-store-turn.js';
import { type LeaseFact, type LivenessFacts, noLiveness } from './liveness-facts.js';
import { decideRecovery, GRACE_SECONDS, JOURNAL_GIVE_UP_SECONDS, type RecoveryInput } from './recovery-policy.js';

const SUBMITTED = 1_000;

const started: SessionEvent = { type: 'SessionStarted', data: { sessionId: 's1', title: null, parentSessionId: null, createdAt: 900 } };
const submitted = (runId = 'r1', text = 'Summarise the report', submittedAt = SUBMITTED): SessionEvent => ({
  type: 'UserMessageSubmitted',
  data: { runId, text, attachments: [], source: null, submittedAt },
});
const observed = (...rows: StateRow[]): SessionEvent => ({ type: 'StateRowsObserved', data: { rows, observedAt: 1_020 } });
const stateOf = (...events: SessionEvent[]): SessionState => evolveAll(initialSessionState(), events);
const pendingState = (): SessionState => stateOf(started, submitted());

const lease = (overrides: Partial<LeaseFact> = {}): LeaseFact => ({
  hostId: 'host-a',
  phase: 'running',
  expiresAt: SUBMITTED + 600,
  phaseSince: SUBMITTED + 1,
  releasedAt: null,
  ...overrides,
});
const facts = (overrides: Partial<LivenessFacts> = {}): LivenessFacts => ({ ...noLiveness('r1'), ...overrides });

const decideAt = (now: number, input: Partial<RecoveryInput> = {}) =>
  decideRecovery({ state: pendingState(), liveness: facts(), now, ...input });

describe('the 30 s registration grace', () => {
  it('decides nothing while the turn is younger than 30 s', () => {
    const outcome = decideAt(SUBMITTED + GRACE_SECONDS - 0.001);
    expect(outcome).toEqual({ decisions: [], skipped: 'grace' });
  });

  it('decides once the turn is 30 s old', () => {
    expect(decideAt(SUBMITTED + GRACE_SECONDS).decisions.map((d) => d.type)).toEqual(['TurnInterrupted']);
  });

  it('treats a turn without a submission time as old enough (legacy data)', () => {
    const state = stateOf(started, submitted('r1', 'Old turn', 0));
    expect(decideRecovery({ state, liveness: facts(), now: 5 }).decisions).toHaveLength(1);
  });
});

describe('a run that is alive', () => {
  const late = SUBMITTED + 300;

  it('is never touched while its lease counts', () => {
    expect(decideAt(late, { liveness: facts({ lease: lease() }) })).toEqual({ decisions: [], skipped: 'run_alive' });
  });

  it('is never touched while its live stream is open, even without a lease', () => {
    expect(decideAt(late, { liveness: facts({ stream: { openedAt: SUBMITTED } }) })).toEqual({ decisions: [], skipped: 'run_alive' });
  });

  it('is never touched while its lease has been cancelling for at most 60 s', () => {
    const cancelling = lease({ phase: 'cancelling', phaseSince: late - 60 });
    expect(decideAt(late, { liveness: facts({ lease: cancelling }) }).skipped).toBe('run_alive');
  });

  it('counts as gone once its lease has been cancelling for over 60 s', () => {
    const cancelling = lease({ phase: 'cancelling', phaseSince: late - 61 });
    expect(decideAt(late, { liveness: facts({ lease: cancelling }) }).decisions).toHaveLength(1);
  });
});

describe('sessions that are never repaired', () => {
  const now = SUBMITTED + 3_600;

  it('skips a compression parent (archived)', () => {
    const state = stateOf(started, submitted(), { type: 'SessionCompressed', data: { childSessionId: 's2', at: 1_010 } });
    expect(decideRecovery({ state, liveness: facts(), now })).toEqual({ decisions: [], skipped: 'archived' });
  });

  it('skips a session another session continues', () => {
    expect(decideAt(now, { hasContinuationChild: true })).toEqual({ decisions: [], skipped: 'continuation_child' });
  });

  it('decides nothing for a session without a pending turn', () => {
    expect(decideRecovery({ state: stateOf(started), liveness: null, now })).toEqual({ decisions: [], skipped: 'no_pending_turn' });
  });
});

describe('the cause of an interruption (reference §3.3)', () => {
  const now = SUBMITTED + 120;
  const interruptedWith = (liveness: LivenessFacts | null, state = pendingState()) => {
    const [decision] = decideRecovery({ state, liveness, now }).decisions;
    if (decision?.type !== 'TurnInterrupted') throw new Error(`expected TurnInterrupted, got ${decision?.type}`);
    return decision.data;
  };

  it('is process_restart when the host of the latest lease booted after the submission', () => {
    const data = interruptedWith(facts({ lease: lease({ expiresAt: now - 1 }), hostStartedAt: SUBMITTED + 5 }));
    expect(data).toMatchObject({ runId: 'r1', cause: 'process_restart', detectedAt: now });
    expect(data.evidence).toMatchObject({
      now,
      submittedAt: SUBMITTED,
      hostStartedAt: SUBMITTED + 5,
      lease: { hostId: 'host-a', status: 'expired' },
      cause: 'process_restart',
    });
  });

  it('is not process_restart when that host booted before the submission', () => {
    expect(interruptedWith(facts({ lease: lease({ expiresAt: now - 1 }), hostStartedAt: SUBMITTED - 5 })).cause).toBe(
      'lost_worker_bookkeeping',
    );
  });

  it('is stream_run_split_brain when the registry still lists the run (stale cancelling lease)', () => {
    const stale = lease({ phase: 'cancelling', phaseSince: now - 61 });
    const data = interruptedWith(facts({ lease: stale, hostStartedAt: SUBMITTED - 100 }));
    expect(data.cause).toBe('stream_run_split_brain');
    expect(data.evidence).toMatchObject({ now, lease: { phase: 'cancelling', phaseSince: now - 61, status: 'stale_cancelling' } });
  });

  it('is lost_worker_bookkeeping when nothing lists the run any more', () => {
    const data = interruptedWith(facts({ lease: lease({ releasedAt: SUBMITTED + 10 }) }));
    expect(data.cause).toBe('lost_worker_bookkeeping');
    expect(data.evidence).toMatchObject({ now, stream: null, lease: { status: 'released', releasedAt: SUBMITTED + 10 } });
  });

  it('is lost_worker_bookkeeping when the run never had a lease', () => {
    const data = interruptedWith(facts());
    expect(data).toMatchObject({ cause: 'lost_worker_bookkeeping' });
    expect(data.evidence).toEqual({
      now,
      runId: 'r1',
      submittedAt: SUBMITTED,
      ageSeconds: 120,
      graceSeconds: 30,
      stream: null,
      lease: null,
      hostStartedAt: null,
      cancellingTimeoutSeconds: 60,
      cause: 'lost_worker_bookkeeping',
    });
  });

  it('is unknown when the pending turn has no run id', () => {
    const base = pendingState();
    const state: SessionState = { ...base, pending: { ...base.pending!, runId: '' } };
    const data = interruptedWith(null, state);
    expect(data).toMatchObject({ runId: null, cause: 'unknown', evidence: { now, runId: null } });
  });
});

describe('when the agent store already holds the turn (reference §4.5)', () => {
  const now = SUBMITTED + 60;
  const prompt: StateRow = { rowId: 7, role: 'user', content: '[Workspace::v1: /home/ws]\nSummarise the report', timestamp: SUBMITTED + 1 };
  const answer: StateRow = { rowId: 8, role: 'assistant', content: 'The report says three things.', timestamp: SUBMITTED + 9 };

  it('appends TurnRecoveredFromAgentStore with its evidence, and the view shows the answer with no marker', () => {
    const state = stateOf(started, submitted(), observed(prompt, answer));
    const { decisions } = decideRecovery({ state, liveness: facts(), now });
    expect(decisions).toEqual([
      {
        type: 'TurnRecoveredFromAgentStore',
        data: {
          runId: 'r1',
          detectedAt: now,
          evidence: expect.objectContaining({
            now,
            submittedAt: SUBMITTED,
            agentStore: { shownRows: 1, adoptedRows: 2, promptShown: 1, promptAdopted: 1, promptIndex: 0, answerIndex: 1, promptMatch: 'visible_text' },
          }),
        },
      },
    ]);
    const view = render(evolveAll(state, decisions));
    expect(view.markers).toEqual([]);
    expect(view.pendingTurn).toBeNull();
    expect(view.display.map((row) => row.content)).toEqual([prompt.content, answer.content]);
  });

  it('recognises the prompt under a legacy workspace tag holding a Windows path (no `]` inside, reference §2.1 R2)', () => {
    const legacy: StateRow = { ...prompt, content: '[Workspace: C:\\Users\\dev\\]\nSummarise the report' };
    const state = stateOf(started, submitted(), observed(legacy, answer));
    expect(checkAgentStore(state, render(state), now)).toMatchObject({ holdsTurn: true, promptShown: 1, promptAdopted: 1, promptMatch: 'visible_text' });
    expect(decideRecovery({ state, liveness: facts(), now }).decisions.map((d) => d.type)).toEqual(['TurnRecoveredFromAgentStore']);
  });

  it('interrupts instead when the agent rows hold the prompt but no answer', () => {
    const state = stateOf(started, submitted(), observed(prompt));
    expect(decideRecovery({ state, liveness: facts(), now }).decisions.map((d) => d.type)).toEqual(['TurnInterrupted']);
  });

  it('interrupts instead when the agent rows hold an answer to another prompt', () => {
    const other: StateRow = { ...prompt, content: 'Something else' };
    const state = stateOf(started, submitted(), observed(other, answer));
    expect(decideRecovery({ state, liveness: facts(), now }).decisions.map((d) => d.type)).toEqual(['TurnInterrupted']);
  });

  it('interrupts instead when the agent rows are only an earlier exchange with the same prompt', () => {
    const earlier: StateRow[] = [
      { rowId: 1, role: 'user', content: 'Summarise the report', timestamp: 500 },
      { rowId: 2, role: 'assistant', content: 'Earlier answer.', timestamp: 510 },
    ];
    const state = stateOf(started, observed(...earlier), submitted());
    expect(decideRecovery({ state, liveness: facts(), now }).decisions.map((d) => d.type)).toEqual(['TurnInterrupted']);
  });

  it('recovers a repeated prompt when the exchange of this turn follows the earlier one', () => {
    const earlier: StateRow[] = [
      { rowId: 1, role: 'user', content: 'Summarise the report', timestamp: 500 },
      { rowId: 2, role: 'assistant', content: 'Earlier answer.', timestamp: 510 },
    ];
    const state = stateOf(started, observed(...earlier), submitted(), observed(prompt, answer));
    const [decision] = decideRecovery({ state, liveness: facts(), now }).decisions;
    expect(decision).toMatchObject({ type: 'TurnRecoveredFromAgentStore', data: { evidence: { agentStore: { promptIndex: 2, answerIndex: 3 } } } });
  });

  it('still waits for the grace and for a live run', () => {
    const state = stateOf(started, submitted(), observed(prompt, answer));
    expect(decideRecovery({ state, liveness: facts(), now: SUBMITTED + 10 }).skipped).toBe('grace');
    expect(decideRecovery({ state, liveness: facts({ lease: lease() }), now }).skipped).toBe('run_alive');
  });
});

describe('a pending image turn whose agent row is multipart (reference §2.5 R15, seed "pending image prompt ... proven", defect D2)', () => {
  const now = SUBMITTED + 60;
  const prompt = 'Describe the attached image';
  const image = { type: 'image_url', imageUrl: { url: 'data:image/png;base64,YWJj' } };
  const note = 'Agent-only recall note';
  const imageSubmitted = (submittedAt = SUBMITTED): SessionEvent => ({
    type: 'UserMessageSubmitted',
    data: { runId: 'r1', text: prompt, attachments: [{ name: 'sample.png', mime: 'image/png', isImage: true }], source: null, submittedAt },
  });
  const agentRow = (content: StateRow['content'], timestamp = SUBMITTED): StateRow => ({ rowId: 7, role: 'user', content, timestamp });
  const answer: StateRow = { rowId: 8, role: 'assistant', content: 'recovered assistant tail', timestamp: SUBMITTED + 1 };
  const decide = (...events: SessionEvent[]) => decideRecovery({ state: stateOf(started, ...events), liveness: facts(), now });
  const typesOf = (...events: SessionEvent[]) => decide(...events).decisions.map((d) => d.type);

  it('recovers from the agent store when the first text part is the prompt and an agent-only note follows the image', () => {
    const row = agentRow([{ type: 'text', text: prompt }, image, { type: 'text', text: note }]);
    const state = stateOf(started, imageSubmitted(), observed(row, answer));
    const { decisions } = decideRecovery({ state, liveness: facts(), now });
    expect(decisions).toMatchObject([
      { type: 'TurnRecoveredFromAgentStore', data: { evidence: { agentStore: { promptMatch: 'first_text_part', promptShown: 1, promptAdopted: 1 } } } },
    ]);
    const view = render(evolveAll(state, decisions));
    expect(view.markers).toEqual([]);
    expect(view.pendingTurn).toBeNull();
    expect(view.display.at(-1)).toMatchObject({ role: 'assistant', content: 'recovered assistant tail' });
  });

  it('compares that first text part without the workspace prefix and with whitespace collapsed, from the submission second on', () => {
    const row = agentRow([{ type: 'text', text: `[Workspace::v1: /home/ws]\n  Describe  the attached\nimage ` }, image, { type: 'text', text: note }]);
    expect(typesOf(imageSubmitted(SUBMITTED + 0.75), observed(row, answer))).toEqual(['TurnRecoveredFromAgentStore']);
  });

  it('still recognises an agent row whose text parts alone are the prompt (visible text)', () => {
    const [decision] = decide(imageSubmitted(), observed(agentRow([{ type: 'text', text: prompt }, image]), answer)).decisions;
    expect(decision).toMatchObject({ type: 'TurnRecoveredFromAgentStore', data: { evidence: { agentStore: { promptMatch: 'visible_text' } } } });
  });

  it('interrupts when the first text part is another text, even if a later part is the prompt', () => {
    const row = agentRow([{ type: 'text', text: note }, image, { type: 'text', text: prompt }]);
    expect(typesOf(imageSubmitted(), observed(row, answer))).toEqual(['TurnInterrupted']);
  });

  it('interrupts when the multipart row is older than the submission second', () => {
    const row = agentRow([{ type: 'text', text: prompt }, image, { type: 'text', text: note }], SUBMITTED - 1);
    expect(typesOf(imageSubmitted(), observed(row, answer))).toEqual(['TurnInterrupted']);
    // The older row does not even count as showing the prompt: only the pending prompt row does.
    const state = stateOf(started, imageSubmitted(), observed(row, answer));
    expect(checkAgentStore(state, render(state), now)).toMatchObject({ holdsTurn: false, promptShown: 1, promptAdopted: 0, promptIndex: null, promptMatch: null });
  });

  it('interrupts when no answer follows the multipart row (seed "pending image row alone")', () => {
    const row = agentRow([{ type: 'text', text: prompt }, image, { type: 'text', text: note }]);
    expect(typesOf(imageSubmitted(), observed(row))).toEqual(['TurnInterrupted']);
    const earlyAnswer: StateRow = { ...answer, rowId: 6, timestamp: SUBMITTED - 1 };
    expect(typesOf(imageSubmitted(), observed(earlyAnswer, { ...row, rowId: 7 }))).toEqual(['TurnInterrupted']);
  });
});

describe('giving up on a journal (86,400 s after detection)', () => {
  const detectedAt = SUBMITTED + 40;
  const interrupted: SessionEvent = {
    type: 'TurnInterrupted',
    data: { runId: 'r1', cause: 'lost_worker_bookkeeping', detectedAt, evidence: {} },
  };
  const decisionsAt = (now: number, ...extra: SessionEvent[]) =>
    decideRecovery({ state: stateOf(started, submitted(), interrupted, ...extra), liveness: null, now }).decisions;

  it('does nothing before 86,400 s', () => {
    expect(decisionsAt(detectedAt + JOURNAL_GIVE_UP_SECONDS - 1)).toEqual([]);
  });

  it('appends JournalRecoveryAbandoned at 86,400 s, and the marker turns neutral', () => {
    const now = detectedAt + JOURNAL_GIVE_UP_SECONDS;
    const decisions = decisionsAt(now);
    expect(decisions).toEqual([{ type: 'JournalRecoveryAbandoned', data: { runId: 'r1', at: now, reason: expect.stringContaining('86400') } }]);
    const state = stateOf(started, submitted(), interrupted, ...decisions);
    expect(render(state).markers.map((m) => m.status)).toEqual(['neutral']);
    expect(decideRecovery({ state, liveness: null, now: now + 10 }).decisions).toEqual([]);
  });

  it('leaves a marker alone whose journal recovered output', () => {
    const token: SessionEvent = {
      type: 'JournalEventRecorded',
      data: { runId: 'r1', seq: 1, event: 'token', payload: { text: 'Partial answer' }, createdAt: SUBMITTED + 2 },
    };
    expect(decisionsAt(detectedAt + JOURNAL_GIVE_UP_SECONDS * 2, token)).toEqual([]);
  });

  it('gives up on a done journal whose seq 1 is missing, and the decider accepts it (one marker rule, issue 11)', () => {
    const done: SessionEvent = {
      type: 'JournalEventRecorded',
      data: { runId: 'r1', seq: 2, event: 'done', payload: {}, createdAt: SUBMITTED + 3 },
    };
    const now = detectedAt + JOURNAL_GIVE_UP_SECONDS;
    const decisions = decisionsAt(now, done);
    expect(decisions.map((d) => d.type)).toEqual(['JournalRecoveryAbandoned']);
    const state = stateOf(started, submitted(), interrupted, done);
    expect(decide({ type: 'AbandonJournalRecovery', data: decisions[0]!.data } as never, state).events).toHaveLength(1);
    const seq1: SessionEvent = {
      type: 'JournalEventRecorded',
      data: { runId: 'r1', seq: 1, event: 'metering', payload: {}, createdAt: SUBMITTED + 2 },
    };
    expect(decisionsAt(now, done, seq1)).toEqual([]);
  });

  it('gives up on an old marker and decides the next pending turn in the same sweep', () => {
    const next = submitted('r2', 'Try again', SUBMITTED + 50);
    const now = detectedAt + JOURNAL_GIVE_UP_SECONDS;
    expect(decisionsAt(now, next).map((d) => `${d.type}:${d.data.runId}`)).toEqual([
      'TurnInterrupted:r2',
      'JournalRecoveryAbandoned:r1',
    ]);
  });
});
