import type { MessageRow } from '../messages/message-row.js';
import { buildRecoveredPendingRow, findTurnStart, isCheckpointMatch } from './recovered-pending-row.factory.js';
import { type PendingTurn } from './journal.types.js';

const pending: PendingTurn = {
  text: 'Describe the attached image',
  submittedAt: 1779237637.93,
  attachments: [{ name: 'sample.png', mime: 'image/png' }],
  source: 'wakeup',
};

describe('the recovered pending user row (§4.4)', () => {
  it('carries the prompt verbatim, the whole-second time, the attachments and a non-default source', () => {
    expect(buildRecoveredPendingRow(pending)).toEqual({
      role: 'user',
      content: 'Describe the attached image',
      timestamp: 1779237637,
      recovered: true,
      attachments: [{ name: 'sample.png', mime: 'image/png' }],
      source: 'wakeup',
    });
  });

  it('leaves out empty attachments and the default source', () => {
    expect([
      buildRecoveredPendingRow({ text: ' hi ', submittedAt: 5.5, attachments: [], source: 'webui' }),
      buildRecoveredPendingRow({ text: 'hi', submittedAt: 5, source: null }),
    ]).toEqual([
      { role: 'user', content: ' hi ', timestamp: 5, recovered: true },
      { role: 'user', content: 'hi', timestamp: 5, recovered: true },
    ]);
  });

  it('copies the attachments list', () => {
    expect(buildRecoveredPendingRow(pending).attachments).not.toBe(pending.attachments);
  });
});

describe('a checkpoint match (§4.3)', () => {
  const row: MessageRow = {
    role: 'user',
    content: 'Describe  the attached\nimage',
    timestamp: 1779237637.1,
    attachments: [{ mime: 'image/png', name: 'sample.png' }],
    source: 'wakeup',
  };

  it('holds for ws-equal text in the same second with the same source and attachments', () => {
    expect(isCheckpointMatch(row, pending)).toBe(true);
  });

  it.each<[string, Partial<MessageRow>]>([
    ['an assistant row', { role: 'assistant' }],
    ['other text', { content: 'Describe the image' }],
    ['another second', { timestamp: 1779237638 }],
    ['no timestamp', { timestamp: undefined }],
    ['the default source', { source: undefined }],
    ['other attachments', { attachments: [{ name: 'other.png', mime: 'image/png' }] }],
  ])('fails for %s', (_name, patch) => {
    expect(isCheckpointMatch({ ...row, ...patch }, pending)).toBe(false);
  });

  it('reads a missing source as webui and missing attachments as none', () => {
    const row: MessageRow = { role: 'user', content: 'hi', timestamp: 9 };
    expect(isCheckpointMatch(row, { text: 'hi', submittedAt: 9.9, source: 'webui' })).toBe(true);
  });
});

describe('the start of the pending turn', () => {
  it('is the last checkpoint match or user row with the prompt text', () => {
    const rows: MessageRow[] = [
      { role: 'user', content: 'Describe the attached image', timestamp: 1 },
      { role: 'assistant', content: 'old' },
      { role: 'user', content: 'Describe the attached image ', timestamp: 2 },
      { role: 'assistant', content: 'Describe the attached image' },
    ];
    const starts = [findTurnStart(rows, pending), findTurnStart(rows.slice(0, 2), pending), findTurnStart([], pending)];
    expect(starts).toEqual([2, 0, null]);
  });
});
