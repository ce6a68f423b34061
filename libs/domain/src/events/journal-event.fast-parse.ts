import type { JournalEvent } from '../messages/message-row.js';
import { freeJsonProblem } from './free-json.schema.js';
import { ID_PATTERN } from './session-stream.js';

/**
 * The hot path's shortcut past zod for the one shape a worker sends thousands of times a second: a journal event
 * of exactly `seq`, `event`, `payload` and `createdAt`, each well formed. A zod parse of it allocated and walked
 * ~10 % of the service's CPU on 100-event POSTs (bench/README.md, "Journal bodies without zod").
 *
 * The answer is what `journalEventSchema.parse` answers (a new object with the schema's keys in its order, the
 * payload as it came), or null for anything else: a bad field, an extra key, an object that is not plain. The
 * caller then parses with zod, which accepts or names every bad field, so no error and no accepted value differs
 * from zod's. The schema stays the one home of the rules; `journal-event.fast-parse.property.unit.spec.ts` holds
 * this function to it on generated inputs. `keys` is how many own keys the object holds: 5 for a route's body event,
 * whose transport field beside the four (`durability`) its caller checks.
 */
export function plainJournalEvent(value: unknown, keys = 4): JournalEvent | null {
  if (!isPlainObject(value) || keyCount(value) !== keys) return null;
  const { seq, event, payload, createdAt } = value as Partial<Record<keyof JournalEvent, unknown>>;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return null;
  if (typeof event !== 'string' || event.length === 0) return null;
  if (typeof createdAt !== 'number' || !Number.isFinite(createdAt)) return null;
  if (!isPlainObject(payload) || !plainPayload(payload)) return null;
  return { seq, event, payload, createdAt };
}

/** `recordJournalEventsSchema.parse`'s answer for the plain case (`plainJournalEvent` for every event), else null. */
export function plainRecordJournalEvents(value: unknown): { runId: string; events: JournalEvent[] } | null {
  if (!isPlainObject(value) || keyCount(value) !== 2) return null;
  const { runId, events } = value as { runId?: unknown; events?: unknown };
  if (typeof runId !== 'string' || !ID_PATTERN.test(runId)) return null;
  const parsed = plainJournalEvents(events);
  return parsed === null ? null : { runId, events: parsed };
}

/** The events of a journal command (1..1000, each `plainJournalEvent`), or null. */
export function plainJournalEvents(events: unknown, parse: (event: unknown) => JournalEvent | null = plainJournalEvent): JournalEvent[] | null {
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_JOURNAL_EVENTS) return null;
  const parsed: JournalEvent[] = [];
  // By index, as zod reads an array (an own iterator is not asked); a hole reads undefined and is left to zod.
  for (let index = 0; index < events.length; index += 1) {
    const one = parse(events[index]);
    if (one === null) return null;
    parsed.push(one);
  }
  return parsed;
}

/** The most events one journal command carries (`recordJournalEventsSchema`). */
export const MAX_JOURNAL_EVENTS = 1000;

/** An object literal's kind of object (what JSON.parse makes): not an array, a Date, a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** Own enumerable keys, counted without the array `Object.keys` makes (an object literal inherits none). */
export function keyCount(value: object): number {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count += 1;
  return count;
}

/** Whether every own enumerable key is one of `allowed`: what a strict zod object checks (it looks at no other key). */
export function onlyKeys(value: object, allowed: readonly string[]): boolean {
  for (const key in value) if (Object.hasOwn(value, key) && !allowed.includes(key)) return false;
  return true;
}

/**
 * A payload zod's record takes as it is: no symbol key and no function value (a `constructor` function fails zod's
 * plain-object check; neither comes out of JSON, so either is left to zod), within the free-form nesting bound. A
 * payload of plain values is one level deep; one holding objects or arrays is walked by the bound's own rule.
 */
function plainPayload(payload: Record<string, unknown>): boolean {
  if (Object.getOwnPropertySymbols(payload).length > 0) return false;
  let nested = false;
  for (const key in payload) {
    const item = payload[key];
    if (typeof item === 'function') return false;
    if (typeof item === 'object' && item !== null) nested = true;
  }
  return !nested || freeJsonProblem(payload) === null;
}
