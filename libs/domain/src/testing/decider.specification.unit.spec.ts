import { DomainError } from '../errors/domain.error.js';
import { DeciderSpecification } from './decider.specification.js';

/** The helper must fail where the decider disagrees, or the decider specs written with it could not fail. */
type Event = { type: 'Added'; data: { n: number } };
type Command = { type: 'Add'; n: number };

const given = DeciderSpecification.for<Command, Event, number>({
  initialState: () => 0,
  evolve: (total, event) => total + event.data.n,
  decide: (command, total) => {
    if (command.n < 0) throw new DomainError('VALIDATION', 'n must not be negative');
    if (command.n > 100) throw new RangeError('too large');
    if (command.n === 0) return { events: [], duplicate: false };
    if (command.n === total) return { events: [], duplicate: true };
    return { events: [{ type: 'Added', data: { n: command.n } }], duplicate: false };
  },
});
const added = (n: number): Event => ({ type: 'Added', data: { n } });
const add = (n: number): Command => ({ type: 'Add', n });

describe('DeciderSpecification', () => {
  it('folds the given events and passes on the decided events, one or a list', () => {
    given([added(1), added(2)]).when(add(5)).then(added(5));
    given(added(1)).when(add(5)).then([added(5)]);
    given([]).when(add(5)).then([expect.objectContaining({ data: { n: 5 } })]);
  });

  it('fails then() on other events, and on a duplicate', () => {
    expect(() => given([]).when(add(5)).then(added(6))).toThrow();
    expect(() => given([added(3)]).when(add(3)).then([])).toThrow();
  });

  it('tells nothing happened from a duplicate, using the given events', () => {
    given([]).when(add(0)).thenNothingHappened();
    given([added(1), added(2)]).when(add(3)).thenDuplicate();
    expect(() => given([added(1), added(2)]).when(add(3)).thenNothingHappened()).toThrow();
    expect(() => given([]).when(add(0)).thenDuplicate()).toThrow();
    expect(() => given([]).when(add(3)).thenDuplicate()).toThrow();
  });

  it('passes thenThrows() for the code, the error type or a check, and fails it otherwise', () => {
    given([]).when(add(-1)).thenThrows('VALIDATION');
    given([]).when(add(101)).thenThrows(RangeError);
    given([]).when(add(101)).thenThrows(RangeError, (error) => error.message === 'too large');
    given([]).when(add(-1)).thenThrows((error: unknown) => error instanceof DomainError);
    expect(() => given([]).when(add(-1)).thenThrows('SESSION_NOT_FOUND')).toThrow();
    expect(() => given([]).when(add(101)).thenThrows('VALIDATION')).toThrow();
    expect(() => given([]).when(add(-1)).thenThrows(RangeError)).toThrow();
    expect(() => given([]).when(add(101)).thenThrows(RangeError, () => false)).toThrow();
    expect(() => given([]).when(add(5)).thenThrows()).toThrow('the command was not refused');
  });
});
