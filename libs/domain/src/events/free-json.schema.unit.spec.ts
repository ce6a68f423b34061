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

  describe('with a prototype key (issue 12, defect 4: refused everywhere, never dropped)', () => {
    it('refuses __proto__ at the top of a payload, where copying it would have dropped it', () => {
      const payload = JSON.parse('{"__proto__":{"polluted":true},"text":"hi"}');
      expect(issuesOf(journalEventSchema.safeParse(event(payload)))).toEqual([
        { path: 'payload.__proto__', message: 'prototype keys (__proto__, constructor.prototype) are refused' },
      ]);
    });

    it('refuses a nested __proto__ and constructor.prototype at their paths', () => {
      const payload = JSON.parse('{"args":[{"__proto__":{}}],"x":{"constructor":{"prototype":{}}}}');
      expect(issuesOf(journalEventSchema.safeParse(event(payload))).map((issue) => issue.path)).toEqual([expect.stringMatching(/^payload\.(args\.0\.__proto__|x\.constructor\.prototype)$/)]);
      const row = messageRowSchema.safeParse({ role: 'user', meta: JSON.parse('{"__proto__":1}') });
      expect(issuesOf(row).map((issue) => issue.path)).toEqual(['meta.__proto__']);
    });

    it('keeps every other key verbatim, a "constructor" string and "prototype" elsewhere included', () => {
      const payload = { text: "'; DROP TABLE events; --", constructor: 'x', prototype: { a: 1 }, nested: { toString: 1 } };
      const parsed = journalEventSchema.parse(event(payload));
      expect(parsed.payload).toEqual(payload);
    });
  });
});
