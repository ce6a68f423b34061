import { ProjectionNotFoundError, RebuildInProgressError, type RebuildPhase, rebuildProjection } from '#read-models';
import { CliError, EXIT, type CliIo, write, writeLine } from './cli-io.js';
import type { CliDatabase } from './database.connector.js';
import { createProgress } from './progress.reporter.js';

/**
 * `chronicle rebuild NAME`: the blue/green rebuild of a read model (built beside the live table from the log,
 * swapped in atomically, the old one dropped; reads keep working). One rebuild per projection at a time across
 * replicas and CLIs (advisory lock): a second one is refused. Progress (events replayed, rate, ETA) on stderr.
 */
export async function rebuildCommand(db: CliDatabase, io: CliIo, options: { name: string }): Promise<number> {
  // The total is the rebuild's own count of what it replays, known from its first report.
  const progress = createProgress({ stream: io.stderr, tty: io.progressTty, label: `rebuild ${options.name}`, unit: 'events', now: io.now });
  let phase: RebuildPhase = 'fill';
  try {
    const result = await rebuildProjection({ pool: db.pool, store: db.store, keys: db.keyring }, options.name, {
      onProgress: (p) => {
        if (p.phase !== phase && p.phase !== 'done') {
          phase = p.phase;
          progress.clear();
          void write(io.stderr, `rebuild ${options.name}: ${phase}\n`);
        }
        progress.tick(Math.max(0, p.eventsReplayed - progress.count), p.eventsToReplay);
      },
    });
    progress.done();
    await writeLine(
      io.stdout,
      `rebuilt ${result.name}: ${result.rows} row(s) from ${result.eventsReplayed} event(s) in ${result.seconds.toFixed(1)}s; the new table is live`,
    );
    return EXIT.ok;
  } catch (error) {
    progress.clear();
    if (error instanceof ProjectionNotFoundError || error instanceof RebuildInProgressError) {
      throw new CliError(EXIT.usage, `chronicle: ${error.message}`);
    }
    throw error;
  }
}
