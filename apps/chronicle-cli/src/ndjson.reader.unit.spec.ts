import { parseEventLine } from './ndjson.reader.js';

const line = (data: string) =>
  `{"streamId":"session-s","version":1,"type":"JournalEventRecorded","data":${data},"metadata":{},"hash":"${'0'.repeat(64)}"}`;

describe('an import line', () => {
  it('keeps a __proto__ and a constructor key of its data as data (issue 27: what the service stores, export writes)', () => {
    const parsed = parseEventLine(line('{"payload":{"__proto__":{"x":1},"constructor":{"prototype":{"x":1}},"text":"a"}}'), 7);
    const payload = (parsed.data as { payload: object }).payload;
    expect(Object.keys(payload)).toEqual(['__proto__', 'constructor', 'text']);
    expect(Object.getPrototypeOf(payload)).toBe(Object.prototype);
    expect(JSON.stringify(parsed.data)).toBe('{"payload":{"__proto__":{"x":1},"constructor":{"prototype":{"x":1}},"text":"a"}}');
  });

  it('keeps its data as it was written, deep nesting included', () => {
    let deep = '1';
    for (let i = 0; i < 200; i += 1) deep = `{"a":${deep}}`;
    const parsed = parseEventLine(line(`{"payload":{"text":"<script>x</script>","deep":${deep}}}`), 1);
    expect((parsed.data as { payload: { text: string } }).payload.text).toBe('<script>x</script>');
  });
});
