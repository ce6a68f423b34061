import { auditAll, type AuditDeps, auditSession, AuditSessionNotFoundError, type SessionAudit } from '#read-models';
import { CliError, EXIT, type CliIo, write } from './cli-io.js';
import type { CliDatabase } from './database.connector.js';
import { createProgress } from './progress.reporter.js';
import { renderAuditTotals, renderSessionAudit, totalsOf } from './audit-report.renderer.js';

export interface AuditOptions {
  readonly sessionId?: string;
  readonly since?: Date;
  readonly json: boolean;
}

const depsOf = (db: CliDatabase): AuditDeps => ({ pool: db.pool, store: db.store, views: db.views, keyring: db.keyring });

async function auditOne(db: CliDatabase, io: CliIo, sessionId: string, json: boolean): Promise<number> {
  let audit: SessionAudit;
  try {
    audit = await auditSession(depsOf(db), sessionId);
  } catch (error) {
    if (error instanceof AuditSessionNotFoundError) throw new CliError(EXIT.usage, `chronicle: session ${sessionId} was never started`);
    throw error;
  }
  // --json: the object POST /v1/sessions/{id}/audit answers.
  await write(io.stdout, json ? `${JSON.stringify(audit)}\n` : renderSessionAudit(audit));
  return audit.match ? EXIT.ok : EXIT.mismatch;
}

/**
 * Every session (or those changed since a time), streamed (constant memory; only mismatches are kept). Readable mode prints each
 * mismatching session and a closing line; `--json` prints the object POST /v1/audit answers. Progress on stderr.
 */
async function auditEverything(db: CliDatabase, io: CliIo, json: boolean, since?: Date): Promise<number> {
  const progress = createProgress({ stream: io.stderr, tty: io.progressTty, label: 'audit', unit: 'sessions', now: io.now });
  const report = await auditAll({ pool: db.pool, keyring: db.keyring }, {
    since,
    onProgress: (p) => progress.tick(p.sessions - progress.count, p.total),
  });
  // Mismatches are printed after the bar is finished so stdout and the \r line never share a screen line.
  progress.done(`(${report.eventsReplayed} events replayed, ${report.mismatches.length} mismatch(es))`);
  if (json) {
    const { sessions, mismatches, eventsReplayed, seconds } = report;
    await write(io.stdout, `${JSON.stringify({ sessions, mismatches, eventsReplayed, seconds })}\n`);
  } else {
    for (const audit of report.mismatches) await write(io.stdout, `${renderSessionAudit(audit)}\n`);
    await write(io.stdout, renderAuditTotals(totalsOf(report)));
  }
  return report.mismatches.length === 0 ? EXIT.ok : EXIT.mismatch;
}

/** `chronicle audit [--session ID | --since ISO] [--json]`: exit 1 when any session's chain or views do not match its events. */
export async function auditCommand(db: CliDatabase, io: CliIo, options: AuditOptions): Promise<number> {
  return options.sessionId === undefined
    ? auditEverything(db, io, options.json, options.since)
    : auditOne(db, io, options.sessionId, options.json);
}
