import type { JournalEvent, MessageRow } from '../messages/message-row.js';
import { buildMarkerRow, deriveMarkerStatus } from '../markers/marker-status.policy.js';
import { placeRecoveredRows } from '../markers/recovered-rows.placement.js';
import { summarizeJournal } from './journal-summary.projection.js';
import { journalEvents, journalMaterialiser } from '../testing/journal-events.builder.js';

/** Port of the reference's test_lost_response_recovered_on_second_read (#2423, #2615). */
const RUN = '7c8b4108d52b4aba9af362d3a54f47ac';
const ev = journalEvents(1779237640.5);
const recovered = (content: string, timestamp: number): MessageRow => ({
  role: 'assistant',
  content,
  timestamp,
  recoveredFromRunJournal: true,
  recoveredRunId: RUN,
});
const materialise = journalMaterialiser(RUN, 1);

describe('when the journal of the lost-response regression arrives (seed scenario)', () => {
  const history: MessageRow[] = [
    { role: 'user', content: 'q0' },
    { role: 'assistant', content: 'a0' },
    { role: 'user', content: '[IMPORTANT: Background process polling.]', timestamp: 1779237637, recovered: true },
  ];
  const events = [
    ev(1, 'token', { text: 'Checking GitHub first.' }),
    ev(2, 'tool', {
      name: 'terminal',
      preview: 'gh pr list --repo nesquena/hermes-webui',
      args: { command: 'gh pr list --repo nesquena/hermes-webui' },
    }),
    ev(3, 'tool_complete', { name: 'terminal', duration: 1.2, is_error: false }),
    ev(4, 'token', { text: ' The first PR scan completed.' }),
  ];
  const expectedCard = {
    name: 'terminal',
    preview: 'gh pr list --repo nesquena/hermes-webui',
    args: { command: 'gh pr list --repo nesquena/hermes-webui' },
    done: true,
    isError: false,
    duration: 1.2,
    assistantMessageIndex: 3,
    recoveredFromRunJournal: true,
    recoveredRunId: RUN,
  };

  it.each([false, true])('recovers both texts and a finished card under the first (dedupe %s)', (dedupeExisting) => {
    const result = materialise(events, { rows: history, dedupeExisting });
    expect([result.rows, result.toolCards, result.recovered]).toEqual([
      [
        ...history,
        recovered('Checking GitHub first.', 1779237641),
        recovered('The first PR scan completed.', 1779237644),
      ],
      [expectedCard],
      true,
    ]);
  });

  it('adds nothing when the same journal is materialised again with dedupe', () => {
    const first = materialise(events, { rows: history });
    const again = materialise(events, { ...first, dedupeExisting: true });
    expect(again).toEqual({ ...first, recovered: false });
  });

  it('promotes the marker on the second read and threads the rows above it', () => {
    const marker = (status: 'pending_journal' | 'recovered') =>
      buildMarkerRow({ cause: 'lost_worker_bookkeeping', status, timestamp: 1779237700 });
    const statusOf = (journal: readonly JournalEvent[]) =>
      deriveMarkerStatus({ journal: summarizeJournal(RUN, journal), abandoned: false, superseded: false });
    expect(statusOf([])).toBe('pending_journal');

    const late = materialise(events, { rows: [...history, marker('pending_journal')], dedupeExisting: true });
    const placed = placeRecoveredRows(late.rows, RUN, late.toolCards);
    expect(statusOf(events)).toBe('recovered');
    expect(placed).toEqual({
      rows: [
        ...history,
        recovered('Checking GitHub first.', 1779237641),
        recovered('The first PR scan completed.', 1779237644),
        marker('pending_journal'),
      ],
      toolCards: [expectedCard],
    });
  });
});
