import { MAX_FREE_JSON_DEPTH } from './free-json.schema.js';
import { journalEventSchema, messageRowSchema } from './row.schemas.js';
import { userMessageSubmittedDataSchema } from './session-event.schemas.js';

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 1; i < depth; i += 1) value = { a: value };
  return { a: value };
};
const issuesOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (result.error?.issues ?? []).map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
const event = (payload: unknown) => ({ seq: 1, event: 'token', payload, createdAt: 1 });

describe('free-form JSON fields', () => {
  describe('when nested past the limit (issue 12, defect 3)', () => {
    it(`keeps ${MAX_FREE_JSON_DEPTH} levels and refuses ${MAX_FREE_JSON_DEPTH + 1}, naming the field and the limit`, () => {
      expect(journalEventSchema.safeParse(event(nested(MAX_FREE_JSON_DEPTH))).success).toBe(true);
      expect(issuesOf(journalEventSchema.safeParse(event(nested(MAX_FREE_JSON_DEPTH + 1))))).toEqual([
        { path: 'payload', message: 'nested deeper than 64 levels (the limit for free-form JSON)' },
      ]);
    });

    it('refuses 10,000 levels in meta, attachments, toolCalls and content parts without exhausting the stack', () => {
      const deep = nested(10_000);
      const row = messageRowSchema.safeParse({
        role: 'assistant',
        meta: deep,
        toolCalls: [deep],
        partialToolCalls: [deep],
        attachments: [deep],
        content: [{ type: 'x', extra: deep }],
      });
      expect(issuesOf(row).map((issue) => issue.path).sort()).toEqual(['attachments', 'content.0', 'meta', 'partialToolCalls', 'toolCalls']);
      const submission = userMessageSubmittedDataSchema.safeParse({ runId: 'r', text: 't', attachments: [[[deep]]], submittedAt: 1 });
      expect(issuesOf(submission)).toEqual([{ path: 'attachments', message: expect.stringContaining('64 levels') }]);
    });
  });

  describe('with a key named __proto__ or constructor (issue 27: data, kept as it came)', () => {
    const KEYS = '"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}';
    const keyed = (fields: string) => JSON.parse(`{${KEYS},${fields}}`) as Record<string, unknown>;
    const ownKeysAndPrototype = (value: object) => [Object.keys(value), Object.getPrototypeOf(value) === Object.prototype];

    it('keeps them at the top of a journal payload, where a copy would have lost __proto__ to the prototype setter', () => {
      const parsed = journalEventSchema.parse(event(keyed('"text":"hi"')));
      expect(ownKeysAndPrototype(parsed.payload)).toEqual([['__proto__', 'constructor', 'text'], true]);
      expect(JSON.stringify(parsed.payload)).toBe(`{${KEYS},"text":"hi"}`);
      expect(parsed.payload['text']).toBe('hi');
    });

    it('keeps them in meta, attachments, toolCalls and the extra keys of a content part', () => {
      const row = messageRowSchema.parse({
        role: 'user',
        meta: keyed('"turnTps":1'),
        attachments: [keyed('"name":"a"')],
        toolCalls: [{ function: { arguments: keyed('"q":1') } }],
        content: [keyed('"type":"tool_result"'), { type: 'text', text: 'hi' }],
      });
      expect(ownKeysAndPrototype(row.meta!)).toEqual([['__proto__', 'constructor', 'turnTps'], true]);
      expect(JSON.stringify([row.attachments, row.toolCalls, row.content])).toBe(
        `[[{${KEYS},"name":"a"}],[{"function":{"arguments":{${KEYS},"q":1}}}],[{${KEYS},"type":"tool_result"},{"type":"text","text":"hi"}]]`,
      );
      const submission = userMessageSubmittedDataSchema.parse({ runId: 'r', text: 't', attachments: [keyed('"name":"a"')], submittedAt: 1 });
      expect(JSON.stringify(submission.attachments)).toBe(`[{${KEYS},"name":"a"}]`);
    });

    it('still checks the shape around them: a content part needs a type, a text part its text', () => {
      const row = messageRowSchema.safeParse({ role: 'user', content: [keyed('"text":"x"'), keyed('"type":"text"')] });
      expect(issuesOf(row).map((issue) => issue.path)).toEqual(['content.0.type', 'content.1.text']);
      expect(issuesOf(journalEventSchema.safeParse(event([keyed('"a":1')])))).toEqual([{ path: 'payload', message: expect.stringContaining('expected record') }]);
    });

    it('pollutes nothing', () => {
      journalEventSchema.parse(event(keyed('"text":"hi"')));
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
      expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('polluted');
    });
  });
});
