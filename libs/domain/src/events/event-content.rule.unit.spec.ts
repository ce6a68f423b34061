import { canonicalJson } from '../canonical/canonical-json.js';
import { CONTENT_FIELDS, erasedContentOf, joinContent, splitContent } from './event-content.rule.js';
import { SESSION_EVENT_TYPES } from './session.events.js';

describe('event content rule', () => {
  it('names content fields for every event type of the catalogue', () => {
    expect(Object.keys(CONTENT_FIELDS).sort()).toEqual([...SESSION_EVENT_TYPES].sort());
  });

  it('splits an event into its plain fields and its content, and joins them back to the same canonical JSON', () => {
    const data = { runId: 'r1', seq: 3, event: 'token', payload: { text: 'secret' }, createdAt: 10 };
    const { plain, content } = splitContent('JournalEventRecorded', data);
    expect(plain).toEqual({ runId: 'r1', seq: 3, event: 'token', createdAt: 10 });
    expect(content).toEqual({ payload: { text: 'secret' } });
    expect(canonicalJson(joinContent(plain, content))).toBe(canonicalJson(data));
  });

  it('splits into new objects, and keeps a field named __proto__ an own field on either side', () => {
    const data = JSON.parse('{"__proto__":{"x":1},"runId":"r1","seq":1,"event":"token","payload":{"__proto__":2}}') as Record<string, unknown>;
    const { plain, content } = splitContent('JournalEventRecorded', data);
    expect(plain).not.toBe(data);
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.keys(plain)).toEqual(['__proto__', 'runId', 'seq', 'event']);
    expect(canonicalJson(joinContent(plain, content))).toBe(canonicalJson(data));
  });

  it('has no content for an event without content fields, or with none of them present', () => {
    expect(splitContent('TranscriptTruncated', { keepCount: 1, reason: 'edit', at: 1 }).content).toBeNull();
    expect(splitContent('SessionStarted', { sessionId: 's', parentSessionId: null, createdAt: 1 }).content).toBeNull();
  });

  it('reads erased content as each field\'s empty value', () => {
    expect(erasedContentOf('UserMessageSubmitted')).toEqual({ text: '', attachments: [] });
    expect(erasedContentOf('SessionStarted')).toEqual({ title: null });
    expect(erasedContentOf('SessionErased')).toEqual({});
  });
});
