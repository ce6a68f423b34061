import { translate, type PendingAppend } from './append-batch.outcomes.js';
import { ConcurrencyError, IdempotencyKeyTaken } from './event-store.js';

const item: PendingAppend = { streamId: 'session-a', events: [], expected: 3, keys: ['k1'], canon: [], meta: [], context: null, relaxed: false };
const violation = (constraint: string) => Object.assign(new Error(`duplicate key value violates unique constraint "${constraint}"`), { code: '23505', constraint });

describe('translate: a unique violation of the event store keys is a lost race', () => {
  it.each(['streams_pkey', 'events_pkey', 'streams_pkey_102008', 'events_pkey_102040'])('%s: a concurrency conflict', (constraint) => {
    expect(translate(violation(constraint), item)).toEqual(new ConcurrencyError('session-a', 3, null));
  });

  it.each(['idempotency_keys_pkey', 'idempotency_keys_pkey_102072'])('%s: the idempotency key taken', (constraint) => {
    expect(translate(violation(constraint), item)).toBeInstanceOf(IdempotencyKeyTaken);
  });

  it.each(['session_index_pkey', 'session_index_pkey_102008', 'streams_pkey_x', 'my_streams_pkey', 'streams_pkey_'])('%s: any other key is the error as it came', (constraint) => {
    const error = violation(constraint);
    expect(translate(error, item)).toBe(error);
  });

  it('reads the key from the message when the violation names no constraint (Citus, through the coordinator)', () => {
    const throughCoordinator = Object.assign(new Error('duplicate key value violates unique constraint "streams_pkey_102032"'), { code: '23505' });
    expect(translate(throughCoordinator, item)).toEqual(new ConcurrencyError('session-a', 3, null));
    const other = Object.assign(new Error('duplicate key value violates unique constraint "session_index_pkey_102032"'), { code: '23505' });
    expect(translate(other, item)).toBe(other);
  });

  it('leaves an error that is no unique violation as it came', () => {
    const error = Object.assign(new Error('deadlock detected'), { code: '40P01', constraint: 'streams_pkey' });
    expect(translate(error, item)).toBe(error);
  });
});
