import { processIo } from './cli-io.js';
import { runCli } from './cli.runner.js';

/**
 * `chronicle …` (bin/chronicle.mjs imports the swc build of this file). Exit code 0 ok, 1 mismatches found
 * or import refused, 2 usage or connection error. An EPIPE on stdout (`chronicle export | head`) ends quietly.
 */
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
// Leave once stdout is flushed, even if a library left a handle open.
process.stdout.write('', () => process.exit(code));
