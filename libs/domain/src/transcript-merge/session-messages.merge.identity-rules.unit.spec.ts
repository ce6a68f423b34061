import type { MessageRow } from '../messages/message-row.js';
import { mergeSessionMessages } from './session-messages.merge.js';
import { mirrorTextOf } from './native-image.mirror.js';
import { assistant, user } from '../testing/merge-rows.fixture.js';

/** Named rules R13–R18 of reference §2.5. */
const photo = (text: string, timestamp: number, extra: Partial<MessageRow> = {}): MessageRow => ({
  role: 'user',
  content: [{ type: 'text', text }, { type: 'input_image', image: 'b64' }],
  timestamp,
  ...extra,
});

describe('when a dropped duplicate and a kept row are reconciled', () => {
  it('R13 copies only missing or empty display metadata onto the kept row (0 and false count as values)', () => {
    const sidecar = [user('q', 100, { meta: { usedModel: '', firstTokenMs: 10, turnTps: 0, statusCard: {} } })];
    const replay = user('q', 900, { meta: { usedModel: 'm-1', firstTokenMs: 99, turnTps: 55, statusCard: { ok: true }, turnUsage: [] } });

    expect(mergeSessionMessages(sidecar, [replay])).toEqual([
      user('q', 100, { meta: { usedModel: 'm-1', firstTokenMs: 10, turnTps: 0, statusCard: { ok: true } } }),
    ]);
  });

  it('R14 lets the sidecar own a cancelled turn that ends in an error row after a partial answer', () => {
    const sidecar = [user('q', 1), assistant('par', 2, { partial: true }), assistant('Response interrupted.', 3, { error: true })];

    expect(mergeSessionMessages(sidecar, [user('q', 1.5), assistant('complete answer', 2.5)])).toEqual(sidecar);
  });
});

describe('when a rich image prompt and its scalar mirror meet (R15)', () => {
  it('R15 keeps the rich row and gives it the mirror\u2019s provider bytes', () => {
    const mirror = user('[Workspace::v1: /w]\nhere  [screenshot]', 100, { apiContent: 'provider bytes' });

    expect(mergeSessionMessages([photo('here', 100), assistant('seen', 101)], [mirror])).toEqual([
      photo('here', 100, { apiContent: 'provider bytes' }),
      assistant('seen', 101),
    ]);
  });

  it('R15 absorbs the mirror when the rich row\u2019s text part carries the workspace prefix and an attached-files note', () => {
    const text = '[Workspace::v1: /srv/project]\nWhat is on this screen?\n\n[Attached files: shot.png]';
    const rich = photo(text, 100.25);
    const mirror = user(`${text}\n[screenshot]`, 100.25, { apiContent: 'provider bytes' });

    expect(mergeSessionMessages([rich, assistant('seen', 101)], [mirror])).toEqual([
      photo(text, 100.25, { apiContent: 'provider bytes' }),
      assistant('seen', 101),
    ]);
    const twoImages: MessageRow = { ...rich, content: [...(rich.content as unknown[]), { type: 'image_url', image_url: 'u' }] } as MessageRow;
    expect(mergeSessionMessages([twoImages], [user(`${text}\n[screenshot]\n[screenshot]`, 100.25)])).toEqual([twoImages]);
  });

  it('R15 with the workspace prefix still needs the exact timestamp and no conflicting identities', () => {
    const text = '[Workspace::v1: /srv/project]\nWhat is on this screen?\n\n[Attached files: shot.png]';
    const sidecar = [photo(text, 100.25, { id: 'p-1' }), assistant('seen', 101)];
    const later = user(`${text}\n[screenshot]`, 100.5);
    const otherId = user(`${text}\n[screenshot]`, 100.25, { id: 'p-2' });

    expect(mergeSessionMessages(sidecar, [later])).not.toEqual(sidecar);
    expect(mergeSessionMessages(sidecar, [otherId])).not.toEqual(sidecar);
  });

  it('R15 refuses to pair when two rich sidecar rows share the mirror key', () => {
    const sidecar = [photo('here', 100), photo('here', 100), assistant('seen', 101)];
    const mirror = user('here [screenshot]', 100);

    expect(mergeSessionMessages(sidecar, [mirror])).toEqual([sidecar[0], sidecar[1], mirror, sidecar[2]]);
  });

  it('R15 refuses to pair when the matching agent rows carry different identities', () => {
    const sidecar = [assistant('before', 99), photo('here', 100), assistant('seen', 101)];
    const first = user('here [screenshot]', 100, { rowId: 1 });
    const second = user('here [screenshot]', 100, { rowId: 2 });

    // Neither mirror is absorbed; the first is rescued as its own row, the second is its exact duplicate (by the dedup key).
    expect(mergeSessionMessages(sidecar, [first, second])).toEqual([sidecar[0], sidecar[1], first, sidecar[2]]);
  });

  it('R15 does not treat literal "[screenshot]" text without an image part as a rich row', () => {
    expect(mirrorTextOf(user('here [screenshot]'))).toBeNull();
    expect(mirrorTextOf({ role: 'user', content: [{ type: 'text', text: 'here [screenshot]' }] })).toBeNull();
    expect(mirrorTextOf(photo('a\n\n b', 1))).toBe('a b [screenshot]');
  });
});

describe('when rows carry durable ids and provider bytes', () => {
  it.each([
    ['negative', -7],
    ['fractional', 7.5],
    ['boolean', true],
    ['NaN', Number.NaN],
  ])('R16 never matches a %s row id', (_kind, rowId) => {
    const sidecar = [user('q', 100), assistant('answer', 101, { rowId: rowId as number })];
    const state = [assistant('answer', 500), assistant('answer', 501, { rowId: rowId as number })];

    expect(mergeSessionMessages(sidecar, state)).toEqual([...sidecar, state[1]]);
  });

  it('R16 matches the same replay when the row id is a valid integer (the contrast)', () => {
    const sidecar = [user('q', 100), assistant('answer', 101, { rowId: 7 })];
    const state = [assistant('answer', 500), assistant('answer', 501, { rowId: 7 })];

    expect(mergeSessionMessages(sidecar, state)).toEqual(sidecar);
  });

  it('R17 keeps an agent row whose provider bytes could not be attached as a distinct row', () => {
    const sidecar = [user('hi', 100), user('hi', 100)];
    const state = [user('hi', 100, { apiContent: '[Workspace::v1: /w]\nhi' })];

    expect(mergeSessionMessages(sidecar, state)).toEqual([...sidecar, state[0]]);
  });
});

describe('when fuzzy matching reaches its limits (R18)', () => {
  const fillers = (count: number): MessageRow[] => Array.from({ length: count }, (_, i) => user(`filler prompt ${i}`, i + 1));
  const variant = assistant('all tests pass now', 5000);

  it('R18 matches loosely while the sidecar has at most 1000 visible keys', () => {
    const sidecar = [...fillers(999), assistant('All tests pass now.', 1000)];

    expect(mergeSessionMessages(sidecar, [variant])).toEqual(sidecar);
  });

  it('R18 uses exact keys only above 1000 visible keys', () => {
    const sidecar = [...fillers(1000), assistant('All tests pass now.', 1001)];

    expect(mergeSessionMessages(sidecar, [variant])).toEqual([...sidecar, variant]);
  });

  it('R18 skips fuzzy pairs where either text exceeds 200,000 characters, exact keys still matching', () => {
    const huge = `${'x'.repeat(200_000)} all tests pass now`;
    const sidecar = [user('q', 1), assistant(huge, 2)];

    expect(mergeSessionMessages(sidecar, [variant])).toEqual([...sidecar, variant]);
    expect(mergeSessionMessages(sidecar, [assistant(huge, 900)])).toEqual(sidecar);
  });
});
