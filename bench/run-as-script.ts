/**
 * Runs a bench's `main` when its file is the script node was started with (not when bench/run.ts imports it):
 * exit 0 when it settles, 1 with the error printed when it fails.
 */
export function runAsScript(moduleUrl: string, main: () => Promise<unknown>): void {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
