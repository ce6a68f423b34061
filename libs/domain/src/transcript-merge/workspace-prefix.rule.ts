import { ws } from '../text/whitespace.js';

/**
 * The workspace-prefix duplicate rule (reference §2.1, R2): the agent store prefixes a user prompt with the
 * workspace it ran in (`[Workspace::v1: /path]`), the sidecar does not. So every comparison key of an
 * agent-store user row (comparison-keys.builder.ts `visibleTextOf`, the api pre-pass, the native-image mirror,
 * the prompt mirror) is taken from its text with ONE leading tag stripped, and the prefixed copy of a prompt the
 * sidecar holds is dropped as its duplicate. What is stored and shown is never stripped: an appended agent row
 * keeps its prefix.
 */

/** `[Workspace::v1: <path>]`, where the path may carry `\]` and `\\` escapes. */
const WORKSPACE_V1_PREFIX = /^\s*\[Workspace::v1: (?:\\[\s\S]|[^\]\\])*\]\s*/;
/** The legacy tag: no `]` inside the path. */
const WORKSPACE_LEGACY_PREFIX = /^\s*\[Workspace: [^\]]*\]\s*/;

/**
 * Removes ONE leading workspace tag (the v1 form first, the legacy form only if v1 did not match),
 * then trims and applies ws(). The sidecar side is never stripped: a user who typed the tag keeps it.
 */
export function stripWorkspacePrefix(text: string): string {
  const v1 = WORKSPACE_V1_PREFIX.exec(text);
  const rest = v1 ? text.slice(v1[0].length) : text.replace(WORKSPACE_LEGACY_PREFIX, '');
  return ws(rest);
}

