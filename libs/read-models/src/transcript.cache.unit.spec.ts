import { evolve, evolveAll, initialSessionState, type SessionEvent, type SessionState, type StreamingOutput, streamingOutputOf } from '#domain';
import { TranscriptCache } from './transcript.cache.js';

const token = (seq: number): SessionEvent => ({ type: 'JournalEventRecorded', data: { runId: 'run', seq, event: 'token', payload: { text: ` t${seq}` }, createdAt: 2_000 + seq } });

/** A session's states version by version: started, a pending turn, then `tokens` tokens one at a time. */
function versions(tokens: number): SessionState[] {
  let state = evolveAll(initialSessionState(), [
    { type: 'SessionStarted', data: { sessionId: 's', title: null, parentSessionId: null, createdAt: 1_000 } },
    { type: 'UserMessageSubmitted', data: { runId: 'run', text: 'go', attachments: [], source: null, submittedAt: 1_500 } },
  ]);
  const states = [state];
  for (let seq = 1; seq <= tokens; seq += 1) states.push((state = evolve(state, token(seq))));
  return states;
}

describe('TranscriptCache: the streaming output of a pending turn', () => {
  const cache = () => new TranscriptCache({ viewBytes: 1 << 20, transcriptBytes: 1 << 20 });

  it('is at every version the whole pass over the turn, the versions asked in any order', () => {
    const states = versions(30);
    const transcripts = cache();
    const order = [0, 1, 2, 5, 4, 5, 9, 3, 10, 11, 30, 12, 29, 30, 20];
    for (const at of order) expect(transcripts.streaming('s', at + 2, states[at]!)).toEqual(streamingOutputOf(states[at]!));
  });

  it('keeps the newest output and the one before it, not older ones, and forgets an erased session', () => {
    const states = versions(10);
    const transcripts = cache();
    const asked: (StreamingOutput | null)[] = states.map((state, at) => transcripts.streaming('s', at + 2, state));
    // The newest two: the same answers again.
    expect(transcripts.streaming('s', 12, states[10]!)).toBe(asked[10]);
    expect(transcripts.streaming('s', 11, states[9]!)).toBe(asked[9]);
    // An older one is made again (equal), not kept: a long turn's text is not held once per version.
    const older = transcripts.streaming('s', 5, states[3]!);
    expect(older).toEqual(asked[3]);
    expect(older).not.toBe(asked[3]);
    transcripts.forget('s');
    expect(transcripts.streaming('s', 12, states[10]!)).not.toBe(asked[10]);
  });
});
