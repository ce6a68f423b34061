import type { InterruptionCause } from '../messages/message-row.js';
import { INTERRUPTED_NEUTRAL_WORDING, INTERRUPTED_NO_OUTPUT_WORDING, INTERRUPTED_PENDING_RETRY_WORDING, INTERRUPTED_RECOVERED_WORDING, composeMarkerContent, type ShownMarkerStatus } from './marker-wording.constants.js';

const LEAD = '**Response interrupted.**\n\nThe live response stream stopped before this turn finished.';
const CAUSES: readonly InterruptionCause[] = [
  'process_restart',
  'stream_run_split_brain',
  'lost_worker_bookkeeping',
  'unknown',
];
const STATUSES: readonly ShownMarkerStatus[] = ['recovered', 'pending_journal', 'no_output', 'neutral'];

describe('the marker wording constants (§3.1)', () => {
  it('say the output was recovered', () => {
    expect(INTERRUPTED_RECOVERED_WORDING).toBe(
      '**Response interrupted.**\n\nThe live response stream stopped before this turn finished. ' +
        'The partial output above was recovered from the run journal, but the interrupted agent process could not continue.',
    );
  });

  it('say no output was recovered', () => {
    expect(INTERRUPTED_NO_OUTPUT_WORDING).toBe(
      '**Response interrupted.**\n\nThe live response stream stopped before this turn finished. ' +
        'The user message above was preserved, but no agent output was recovered.',
    );
  });

  it('ask for a reload while the journal is pending, with an em dash', () => {
    expect(INTERRUPTED_PENDING_RETRY_WORDING).toBe(
      '**Response interrupted.**\n\nThe live response stream stopped before this turn finished. ' +
        'Recovering the partial output from the run journal — reload this session to retry.',
    );
    expect(INTERRUPTED_PENDING_RETRY_WORDING).toContain('journal \u2014 reload');
  });

  it('say partial output may be lost when recovery was abandoned', () => {
    expect(INTERRUPTED_NEUTRAL_WORDING).toBe(
      '**Response interrupted.**\n\nThe live response stream stopped before this turn finished. ' +
        'Partial output may have been lost.',
    );
  });
});

describe('a composed marker content (§3.2)', () => {
  it('matches the reference example for a process restart with a pending journal', () => {
    expect(composeMarkerContent('process_restart', 'pending_journal')).toBe(
      '**Response interrupted.**\n\nThe live response stream stopped before this turn finished. Evidence: the WebUI ' +
        'process started after this turn began, so this looks like a real process crash or restart. Recovering the ' +
        'partial output from the run journal — reload this session to retry.',
    );
  });

  it.each([
    [
      'stream_run_split_brain',
      'Evidence: the browser response stream was gone but the worker registry still listed the run. ' +
        'This is a stream/run bookkeeping split-brain.',
    ],
    [
      'lost_worker_bookkeeping',
      'Evidence: the stream was gone and worker bookkeeping no longer had an active run for it. ' +
        'This usually means the worker state was lost or cleaned up without a terminal event.',
    ],
    ['unknown', 'Evidence: the stream stopped, but the WebUI could not classify the interruption more precisely.'],
  ] as const)('states the %s evidence before the outcome', (cause, detail) => {
    expect(composeMarkerContent(cause, 'recovered')).toBe(
      `${LEAD} ${detail} The partial output above was recovered from the run journal, ` +
        'but the interrupted agent process could not continue.',
    );
  });

  it('ends with the outcome of each status', () => {
    expect(STATUSES.map((status) => composeMarkerContent('unknown', status).split('precisely. ')[1])).toEqual([
      'The partial output above was recovered from the run journal, but the interrupted agent process could not continue.',
      'Recovering the partial output from the run journal — reload this session to retry.',
      'The user message above was preserved, but no agent output was recovered.',
      'Partial output may have been lost.',
    ]);
  });

  it('reads a cause this version does not know as unknown', () => {
    expect(composeMarkerContent('host_vanished' as InterruptionCause, 'neutral')).toBe(
      composeMarkerContent('unknown', 'neutral'),
    );
  });
});

describe('every marker text', () => {
  const texts = [
    INTERRUPTED_RECOVERED_WORDING,
    INTERRUPTED_NO_OUTPUT_WORDING,
    INTERRUPTED_PENDING_RETRY_WORDING,
    INTERRUPTED_NEUTRAL_WORDING,
    ...CAUSES.flatMap((cause) => STATUSES.map((status) => composeMarkerContent(cause, status))),
  ];

  it('names the interruption without asserting that the process restarted (#2739)', () => {
    expect(texts.filter((text) => text.includes('process restarted'))).toEqual([]);
    const unnamed = texts.filter((text) => !text.includes('Response interrupted') || !text.includes('before this turn finished'));
    expect(unnamed).toEqual([]);
    expect(new Set(texts).size).toBe(texts.length);
  });
});
