import type { HermesImportReport } from '#hermes-import';

/**
 * The readable import report: the sessions, the events by type, then every input left out with its reason.
 * A dry run says so on its first line; its counts are what a real run would append.
 */
export function renderHermesReport(report: HermesImportReport): string {
  const { sessions, events, skipped } = report;
  const lines = [
    `${report.dryRun ? 'dry run (nothing written): ' : ''}${sessions.read} session file(s): ${sessions.imported} imported, ` +
      `${sessions.unchanged} already up to date, ${sessions.refused} refused`,
    `${events.total} event(s) ${report.dryRun ? 'to append' : 'appended'}${events.total > 0 ? ':' : ''}`,
  ];
  const width = Math.max(0, ...Object.keys(events.byType).map((type) => type.length));
  for (const [type, count] of Object.entries(events.byType)) lines.push(`  ${type.padEnd(width)}  ${String(count).padStart(6)}`);
  if (skipped.length > 0) {
    lines.push(`${skipped.length} input(s) skipped:`);
    for (const { item, reason } of skipped) lines.push(`  ${item}: ${reason}`);
  }
  return `${lines.join('\n')}\n`;
}
