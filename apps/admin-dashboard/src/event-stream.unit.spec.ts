import { EventStreamParser } from './event-stream';

describe('the event-stream parser', () => {
  it('dispatches an event on the blank line, with its type, data lines and id', () => {
    const parser = new EventStreamParser();
    expect(parser.push('retry: 2000\n\nid: 7\nevent: patch\ndata: {"a":\ndata: 1}\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'patch', data: '{"a":\n1}', id: '7' }]);
    expect(parser.lastEventId).toBe('7');
    expect(parser.retryMs).toBe(2000);
  });

  it('joins events split across chunks anywhere, CRLF included, and skips comments', () => {
    const parser = new EventStreamParser();
    const stream = ': heartbeat\r\n\r\nid: 3\r\nevent: patch\r\ndata: x\r\n\r\n';
    const events = [...stream].flatMap((char) => parser.push(char));
    expect(events).toEqual([{ event: 'patch', data: 'x', id: '3' }]);
  });

  it('names an event without a type "message"', () => {
    expect(new EventStreamParser().push('data: hi\n\n')).toEqual([{ event: 'message', data: 'hi', id: null }]);
  });
});
