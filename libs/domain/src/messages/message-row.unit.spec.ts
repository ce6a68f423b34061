import type { MessageRow } from './message-row.js';

describe('message rows', () => {
  it('are plain JSON values', () => {
    const row: MessageRow = { role: 'user', content: 'hi', timestamp: 1 };
    expect(JSON.parse(JSON.stringify(row))).toEqual(row);
  });
});
