import type { AuditReport, SessionAudit } from '#read-models';

const MAX_VALUE = 120;

/** A stored or replayed value on one line: JSON, shortened; `(absent)` for undefined. */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(absent)';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 3)}...` : text;
}

/** One session's audit, readable: verdict, chain, display hashes and every difference (path, stored, replayed). */
export function renderSessionAudit(audit: SessionAudit): string {
  const lines = [
    `session ${audit.sessionId} · version ${audit.version} · ${audit.match ? (audit.erased ? 'OK (erased: content destroyed, chain and read models verified)' : 'OK') : 'MISMATCH'}`,
    `  chain: ${audit.chain.ok ? 'intact' : `BROKEN at version ${audit.chain.firstBrokenVersion}`}`,
    `  display hash: stored ${audit.storedHash || '(none)'}, replayed ${audit.replayedHash || '(none)'}` +
      (audit.storedHash === audit.replayedHash ? ' (equal)' : ''),
  ];
  if (audit.differences.length > 0) {
    lines.push(`  differences (${audit.differences.length}):`);
    for (const d of audit.differences) {
      lines.push(`    ${d.path}`, `      stored:   ${formatValue(d.stored)}`, `      replayed: ${formatValue(d.replayed)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export interface AuditTotals {
  readonly sessions: number;
  readonly mismatches: number;
  readonly eventsReplayed: number;
  readonly seconds: number;
}

export function totalsOf(report: AuditReport): AuditTotals {
  return {
    sessions: report.sessions,
    mismatches: report.mismatches.length,
    eventsReplayed: report.eventsReplayed,
    seconds: report.seconds,
  };
}

/** The closing line of a whole-store audit. */
export function renderAuditTotals(totals: AuditTotals): string {
  const rate = totals.seconds > 0 ? Math.round(totals.eventsReplayed / totals.seconds) : totals.eventsReplayed;
  const verdict = totals.mismatches === 0 ? 'every session matches' : `${totals.mismatches} session(s) MISMATCH`;
  return (
    `audited ${totals.sessions} session(s), ${totals.eventsReplayed} event(s) replayed in ${totals.seconds.toFixed(1)}s ` +
    `(${rate} events/s): ${verdict}\n`
  );
}
