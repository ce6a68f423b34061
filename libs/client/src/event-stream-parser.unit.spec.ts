import { EventStreamParser } from './event-stream-parser.js';

const STREAM = 'retry: 2000\n\nid: 3\nevent: patch\ndata: {"version":3}\n\n: heartbeat\n\nid: 4\nevent: patch\ndata: {"version":\ndata: 4}\n\n';

describe('EventStreamParser', () => {
  it('answers each complete event once, dropping comments, retry blocks and blocks without data', () => {
    const events = new EventStreamParser().push(STREAM);
    expect(events).toEqual([
      { event: 'patch', id: '3', data: '{"version":3}' },
      { event: 'patch', id: '4', data: '{"version":\n4}' },
    ]);
  });

  it('reads the same events from a stream cut at every position', () => {
    const whole = new EventStreamParser().push(STREAM);
    for (let cut = 1; cut < STREAM.length; cut += 1) {
      const parser = new EventStreamParser();
      expect([...parser.push(STREAM.slice(0, cut)), ...parser.push(STREAM.slice(cut))]).toEqual(whole);
    }
  });

  it('reads the same events fed one character at a time', () => {
    const parser = new EventStreamParser();
    expect([...STREAM].flatMap((char) => parser.push(char))).toEqual(new EventStreamParser().push(STREAM));
  });

  describe('when lines end in \\r\\n or \\r', () => {
    it('reads them as \\n, a \\r\\n cut between its two characters included', () => {
      const crlf = STREAM.replace(/\n/g, '\r\n');
      const parser = new EventStreamParser();
      const cut = crlf.indexOf('\r\n') + 1;
      expect([...parser.push(crlf.slice(0, cut)), ...parser.push(crlf.slice(cut))]).toEqual(new EventStreamParser().push(STREAM));
      // A \r last in a chunk may be the first half of a \r\n: the blank line is known once the next one comes.
      const lone = new EventStreamParser();
      expect(lone.push('data: a\rdata: b\r\r')).toEqual([]);
      expect(lone.push(': next\r')).toEqual([{ event: 'message', data: 'a\nb' }]);
    });
  });

  it('holds an event back until its blank line arrives', () => {
    const parser = new EventStreamParser();
    expect(parser.push('event: patch\ndata: {}\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'patch', data: '{}' }]);
  });

  it('names an event without a type "message", and the next event has no type left over', () => {
    const parser = new EventStreamParser();
    expect(parser.push('event: patch\nid: 1\n\ndata: hi\n\n')).toEqual([{ event: 'message', data: 'hi', id: '1' }]);
  });

  describe('the last event id and the reconnection time', () => {
    it('keeps the last id across events, as the spec says, and lets an empty id clear it', () => {
      const parser = new EventStreamParser();
      expect(parser.push('id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n')).toEqual([
        { event: 'message', data: 'a', id: '7' },
        { event: 'message', data: 'b', id: '7' },
        { event: 'message', data: 'c', id: '' },
      ]);
      expect(parser.lastEventId).toBe('');
    });

    it('takes an id as the last event id only once its block ended, and starts from the id a stream resumes from', () => {
      const parser = new EventStreamParser('3');
      expect(parser.push('id: 4\ndata: a\n')).toEqual([]);
      expect(parser.lastEventId).toBe('3');
      expect(parser.push('\ndata: b\n\n')).toEqual([
        { event: 'message', data: 'a', id: '4' },
        { event: 'message', data: 'b', id: '4' },
      ]);
      expect(parser.lastEventId).toBe('4');
      expect(new EventStreamParser('9').push('data: c\n\n')).toEqual([{ event: 'message', data: 'c', id: '9' }]);
    });

    it('ignores an id holding NUL, and a block of only an id dispatches nothing but keeps it', () => {
      const parser = new EventStreamParser();
      expect(parser.push('id: 5\n\nid: 6\0x\ndata: a\n\n')).toEqual([{ event: 'message', data: 'a', id: '5' }]);
      expect(parser.lastEventId).toBe('5');
    });

    it('takes retry only as digits', () => {
      const parser = new EventStreamParser();
      parser.push('retry: 2000\n\n');
      expect(parser.retryMs).toBe(2000);
      parser.push('retry: 1e3\n\nretry: -5\n\n');
      expect(parser.retryMs).toBe(2000);
    });
  });
});
