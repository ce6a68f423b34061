/** Types of fresh-build.mjs (plain JS: the bin entry runs it before anything is built). */
export function staleSource(root: string): string | null;
export function npmBuild(root: string): string | null;
export function ensureFreshBuild(root: string, options?: { build?: (root: string) => string | null; warn?: (line: string) => void }): string | null;
