/** Types of fresh-build.mjs (plain JS: the bin entry runs it before anything is built). */
export function staleSources(root: string): string[];
export function swcBuild(root: string, files: readonly string[]): string | null;
export function ensureFreshBuild(
  root: string,
  options?: { build?: (root: string, files: readonly string[]) => string | null; warn?: (line: string) => void },
): string | null;
