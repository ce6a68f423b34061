import { DomainError, type DomainErrorCode } from '../errors/domain.error.js';

/**
 * Given/when/then for deciders, in the shape of Emmett's DeciderSpecification:
 *
 *   const given = DeciderSpecification.for({ decide, evolve, initialState });
 *   given([started()]).when(submit('r1')).then([submitted('r1', 'question', 1010)]);
 *   given([]).when(submit('r1')).thenThrows('SESSION_NOT_FOUND');
 *
 * The given events are folded with `evolve` from `initialState()`, the command decided on that state. A
 * decision here is events or a duplicate (a retry found by its natural key), so beside `then` and
 * `thenNothingHappened` there is `thenDuplicate`. Expected events may hold jest matchers.
 */
export interface Decider<Command, Event, State> {
  decide(command: Command, state: State): { readonly events: readonly Event[]; readonly duplicate: boolean };
  evolve(state: State, event: Event): State;
  initialState(): State;
}

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;
/** A check of the thrown error: false, or a failed expect inside it, fails the test. */
type ErrorCheck<E> = (error: E) => boolean | void;

export interface DeciderThen<Event> {
  /** The command appends exactly these events, in this order. */
  then(expected: Event | readonly Event[]): void;
  /** The command appends nothing and is no duplicate (e.g. an empty batch). */
  thenNothingHappened(): void;
  /** The command is a retry of one already decided: nothing appended, `duplicate: true`. */
  thenDuplicate(): void;
  /** The command is refused: at all, with a domain error `code`, an error of `type` (and `check`), or an error meeting `check`. */
  thenThrows(): void;
  thenThrows(code: DomainErrorCode): void;
  thenThrows<E extends Error>(type: ErrorClass<E>, check?: ErrorCheck<E>): void;
  thenThrows(check: ErrorCheck<unknown>): void;
}

export type DeciderSpecification<Command, Event> = (given: Event | readonly Event[]) => { when(command: Command): DeciderThen<Event> };

const list = <T>(value: T | readonly T[]): readonly T[] => (Array.isArray(value) ? value : [value as T]);

function checkThrown(error: unknown, args: readonly unknown[]): void {
  const [first, second] = args;
  if (typeof first === 'string') {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(first);
    return;
  }
  const isClass = typeof first === 'function' && first.prototype instanceof Error;
  if (isClass) expect(error).toBeInstanceOf(first);
  const check = (isClass ? second : first) as ErrorCheck<unknown> | undefined;
  if (check && check(error) === false) throw new Error(`the error did not meet the check: ${String(error)}`);
}

function deciderSpecificationFor<Command, Event, State>(decider: Decider<Command, Event, State>): DeciderSpecification<Command, Event> {
  return (given) => ({
    when(command) {
      const decide = () => decider.decide(command, list(given).reduce(decider.evolve, decider.initialState()));
      return {
        then: (expected) => expect(decide()).toEqual({ events: list(expected), duplicate: false }),
        thenNothingHappened: () => expect(decide()).toEqual({ events: [], duplicate: false }),
        thenDuplicate: () => expect(decide()).toEqual({ events: [], duplicate: true }),
        thenThrows(...args: unknown[]) {
          let decision;
          try {
            decision = decide();
          } catch (error) {
            checkThrown(error, args);
            return;
          }
          throw new Error(`the command was not refused: it decided ${JSON.stringify(decision)}`);
        },
      };
    },
  });
}

export const DeciderSpecification = { for: deciderSpecificationFor };
