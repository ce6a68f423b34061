import { CliError, EXIT, type CliIo, writeLine } from './cli-io.js';
import type { CliDatabase } from './database.connector.js';
import { createProgress } from './progress.reporter.js';

/**
 * `chronicle rotate-keys`: every data key not wrapped by the current master key is unwrapped (with a key of
 * CHRONICLE_MASTER_KEY_PREVIOUS) and wrapped again by CHRONICLE_MASTER_KEY, a page at a time. Events, snapshots
 * and read models are not touched: they are sealed with the data keys, which do not change.
 */
export async function rotateKeysCommand(db: CliDatabase, io: CliIo): Promise<number> {
  if (db.keyring === null) throw new CliError(EXIT.usage, 'chronicle: content is stored plain here (CHRONICLE_ENCRYPTION=off): there are no data keys to rotate');
  const before = await db.keyring.stats();
  const pending = before.live - (before.byMaster[db.keyring.masters.current.id] ?? 0);
  const progress = createProgress({ stream: io.stderr, tty: io.progressTty, label: 'rotate-keys', unit: 'keys', total: pending, now: io.now });
  let done = 0;
  try {
    await db.keyring.rotate((total) => {
      progress.tick(total - done);
      done = total;
    });
  } catch (error) {
    throw new CliError(EXIT.usage, `chronicle: ${(error as Error).message}`);
  }
  progress.done();
  await writeLine(io.stdout, `re-wrapped ${done} data key(s) under master key ${db.keyring.masters.current.id}; ${before.live - done} already were, ${before.destroyed} destroyed (erased sessions)`);
  return EXIT.ok;
}
