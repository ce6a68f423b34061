import { chainHash } from '#event-store';
import { type ChainLink, fastLinkHash, verifyChain } from './chain-verification.js';

function chain(...payloads: { type: string; data: unknown }[]): ChainLink[] {
  let previous = '';
  return payloads.map(({ type, data }, index) => {
    previous = chainHash(previous, index + 1, type, data);
    return { version: index + 1, type, data, hash: previous };
  });
}

const events = chain(
  { type: 'SessionStarted', data: { sessionId: 's1', createdAt: 1 } },
  { type: 'MessagesRecorded', data: { rows: [{ role: 'user', content: 'hi', timestamp: 2 }] } },
  { type: 'MessagesRecorded', data: { rows: [{ role: 'assistant', content: 'hello', timestamp: 3 }] } },
);
const head = { version: 3, lastHash: events[2].hash };

describe('verifyChain', () => {
  it('accepts an untouched chain and its head', () => {
    expect(verifyChain(events, head)).toEqual({ ok: true, firstBrokenVersion: null });
    expect(verifyChain([])).toEqual({ ok: true, firstBrokenVersion: null });
  });

  it('names the version whose data was edited', () => {
    const edited = events.map((e) => (e.version === 2 ? { ...e, data: { rows: [] } } : e));
    expect(verifyChain(edited, head)).toEqual({ ok: false, firstBrokenVersion: 2 });
  });

  it('names the version whose type was edited', () => {
    const edited = events.map((e) => (e.version === 3 ? { ...e, type: 'TurnSettled' } : e));
    expect(verifyChain(edited, head)).toEqual({ ok: false, firstBrokenVersion: 3 });
  });

  it('names the next version when an edit also rewrote its own hash', () => {
    const data = { rows: [] };
    const rehashed = events.map((e) => (e.version === 2 ? { ...e, data, hash: chainHash(events[0].hash, 2, e.type, data) } : e));
    expect(verifyChain(rehashed, head)).toEqual({ ok: false, firstBrokenVersion: 3 });
  });

  it('names a missing version', () => {
    expect(verifyChain([events[0], events[2]], head)).toEqual({ ok: false, firstBrokenVersion: 2 });
  });

  it('breaks after the events when the head claims more of them', () => {
    expect(verifyChain(events.slice(0, 2), head)).toEqual({ ok: false, firstBrokenVersion: 3 });
  });

  it('breaks at the head version when only the last hash disagrees', () => {
    expect(verifyChain(events, { version: 3, lastHash: 'f'.repeat(64) })).toEqual({ ok: false, firstBrokenVersion: 3 });
  });

  it('is ok without a head to check', () => {
    expect(verifyChain(events.slice(0, 2))).toEqual({ ok: true, firstBrokenVersion: null });
  });

  it('hashes each link as chainHash does', () => {
    for (const [i, e] of events.entries()) expect(fastLinkHash(i === 0 ? '' : events[i - 1].hash, e)).toBe(e.hash);
  });
});
