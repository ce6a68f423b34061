import { mergeSessionMessages } from './session-messages.merge.js';
import { assistant, transcript, user } from '../testing/merge-rows.fixture.js';

describe('when a watermark marks an intentional shrink', () => {
  const kept = [user('q', 100), assistant('a', 200)];
  const undone = [user('q', 100), assistant('a', 200), user('undone prompt', 250), assistant('undone answer', 260)];

  it('step 4: drops agent rows newer than W while the sidecar has not moved past it', () => {
    expect(mergeSessionMessages(kept, undone, { watermark: 200, boundary: 200 })).toEqual(kept);
  });

  it('step 4: appends the same rows when there is no watermark (the contrast)', () => {
    expect(transcript(mergeSessionMessages(kept, undone))).toEqual([
      'user: q',
      'assistant: a',
      'user: undone prompt',
      'assistant: undone answer',
    ]);
  });

  it('step 4: once the sidecar advanced past W, drops unknown rows inside its range and keeps newer ones', () => {
    const sidecar = [...kept, user('new turn', 300), assistant('new answer', 310)];
    const state = [...undone, assistant('inside the range', 305), user('new turn', 300.2), assistant('later from the CLI', 400)];

    expect(transcript(mergeSessionMessages(sidecar, state, { watermark: 300, boundary: 200 }))).toEqual([
      'user: q',
      'assistant: a',
      'user: new turn',
      'assistant: new answer',
      'assistant: later from the CLI',
    ]);
  });

  it('step 4: counts as advanced when B < W and the whole sidecar has been replayed', () => {
    const sidecar = [user('q', 100), assistant('a', 150)];
    const state = [user('q', 100.1), assistant('a', 150.1), user('committed after W', 300)];

    expect(transcript(mergeSessionMessages(sidecar, state, { watermark: 250, boundary: 150 }))).toEqual([
      'user: q',
      'assistant: a',
      'user: committed after W',
    ]);
  });

  it('step 4: after a clear (W = 0) drops pre-clear rows that fall inside the new sidecar range', () => {
    const sidecar = [user('fresh start', 500), assistant('hi', 510)];
    const state = [user('fresh start', 500.2), user('from before the clear', 505), assistant('hi', 510.3), user('later', 600)];

    expect(transcript(mergeSessionMessages(sidecar, state, { watermark: 0, boundary: 0 }))).toEqual([
      'user: fresh start',
      'assistant: hi',
      'user: later',
    ]);
    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([
      'user: fresh start',
      'user: from before the clear',
      'assistant: hi',
      'user: later',
    ]);
  });

  it('step 5: drops a row older than W whose merge and content keys the sidecar lacks (an edited prompt)', () => {
    const sidecar = [user('q1', 100), assistant('a1', 110), user('q2 edited', 120), assistant('a2 new', 130)];
    const state = [user('q1', 100), assistant('a1', 110), user('q2 original', 119)];

    expect(mergeSessionMessages(sidecar, state, { watermark: 125, boundary: 110 })).toEqual(sidecar);
  });

  it('step 5: without a watermark the same row is rescued into the transcript (the contrast)', () => {
    const sidecar = [user('q1', 100), assistant('a1', 110), user('q2 edited', 120), assistant('a2 new', 130)];
    const state = [user('q1', 100), assistant('a1', 110), user('q2 original', 119)];

    expect(transcript(mergeSessionMessages(sidecar, state))).toEqual([
      'user: q1',
      'assistant: a1',
      'user: q2 original',
      'user: q2 edited',
      'assistant: a2 new',
    ]);
  });

  it('step 6: drops a user row stamped exactly W that the sidecar does not hold', () => {
    const sidecar = [user('q1', 100), assistant('a1', 110), user('q2 edited', 120)];
    const state = [user('q1', 100), assistant('a1', 110), user('q2 original', 120)];

    expect(mergeSessionMessages(sidecar, state, { watermark: 120, boundary: 120 })).toEqual(sidecar);
  });
});
