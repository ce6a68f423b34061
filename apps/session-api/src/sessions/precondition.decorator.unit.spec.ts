import 'reflect-metadata';
import type { ExecutionContext } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { Precondition, preconditionOf } from './precondition.decorator.js';

/** The context a route handler runs in, for a request with this body and these headers. */
const contextOf = (body: unknown, headers: Record<string, string | string[]> = {}) =>
  ({ switchToHttp: () => ({ getRequest: () => ({ body, headers }) }) }) as unknown as ExecutionContext;

const problemOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    const { status, code, errors } = error as { status: number; code: string; errors: unknown };
    return { status, code, errors };
  }
  throw new Error('expected a refusal');
};

describe('@Precondition()', () => {
  it('is a route parameter decorator whose factory is preconditionOf', () => {
    class Probe {
      write(_expected: number | undefined) {}
    }
    Precondition()(Probe.prototype, 'write', 0);
    const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, Probe, 'write') as Record<string, { index: number; factory: unknown }>;
    expect(Object.values(args)).toEqual([expect.objectContaining({ index: 0, factory: preconditionOf })]);
  });

  it('answers no precondition when neither the body nor If-Match carries one', () => {
    expect(preconditionOf(undefined, contextOf({ rows: [] }))).toBeUndefined();
    expect(preconditionOf(undefined, contextOf(undefined))).toBeUndefined();
  });

  it('takes the body expectedVersion', () => {
    expect(preconditionOf(undefined, contextOf({ expectedVersion: 7 }))).toBe(7);
    expect(preconditionOf(undefined, contextOf({ expectedVersion: 0 }))).toBe(0);
  });

  it('takes If-Match quoted, bare or weak', () => {
    expect(preconditionOf(undefined, contextOf({}, { 'if-match': '"12"' }))).toBe(12);
    expect(preconditionOf(undefined, contextOf({}, { 'if-match': '12' }))).toBe(12);
    expect(preconditionOf(undefined, contextOf({}, { 'if-match': 'W/"3"' }))).toBe(3);
  });

  it('accepts both when they agree', () => {
    expect(preconditionOf(undefined, contextOf({ expectedVersion: 4 }, { 'if-match': '"4"' }))).toBe(4);
  });

  it('refuses both when they disagree: 400 naming expectedVersion', () => {
    expect(problemOf(() => preconditionOf(undefined, contextOf({ expectedVersion: 4 }, { 'if-match': '"5"' })))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'expectedVersion', message: 'is 4 but If-Match says 5' }],
    });
  });

  it('refuses an If-Match that is not a version: 400 naming the header', () => {
    expect(problemOf(() => preconditionOf(undefined, contextOf({}, { 'if-match': '"abc"' })))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'header.If-Match', message: 'must be a quoted non-negative integer' }],
    });
  });

  it('leaves a body expectedVersion that is not a version to the body schema', () => {
    expect(preconditionOf(undefined, contextOf({ expectedVersion: '3' }))).toBeUndefined();
    expect(preconditionOf(undefined, contextOf({ expectedVersion: -1 }, { 'if-match': '"2"' }))).toBe(2);
  });
});
