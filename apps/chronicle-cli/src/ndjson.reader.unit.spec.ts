import { BadLine, parseEventLine } from './ndjson.reader.js';

const line = (data: string) =>
  `{"streamId":"session-s","version":1,"type":"JournalEventRecorded","data":${data},"metadata":{},"hash":"${'0'.repeat(64)}"}`;

describe('an import line (issue 12, defect 4: prototype keys refused everywhere)', () => {
  it('is refused, naming the line and the path, when its data holds a __proto__ key', () => {
    expect(() => parseEventLine(line('{"payload":{"__proto__":{"x":1},"text":"a"}}'), 7)).toThrow(
      new BadLine(7, 'data.payload.__proto__: prototype keys (__proto__, constructor.prototype) are refused (stream session-s version 1)'),
    );
  });

  it('keeps data without prototype keys as it was written, deep nesting included', () => {
    let deep = '1';
    for (let i = 0; i < 200; i += 1) deep = `{"a":${deep}}`;
    const parsed = parseEventLine(line(`{"payload":{"text":"<script>x</script>","deep":${deep}}}`), 1);
    expect((parsed.data as { payload: { text: string } }).payload.text).toBe('<script>x</script>');
  });
});
