import { ProblemError } from '#platform';

/**
 * `expectedVersion` in the body or `If-Match: "n"` (409 vs 412 when the stream moved on). Both given and
 * different is a 400: the client contradicts itself.
 */
export function expectedVersionOf(bodyVersion: number | undefined, ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined) return bodyVersion;
  const match = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(ifMatch);
  if (!match) {
    throw new ProblemError(400, 'VALIDATION_FAILED', 'If-Match must be a stream version such as "12".', [
      { path: 'header.If-Match', message: 'must be a quoted non-negative integer' },
    ]);
  }
  const headerVersion = Number(match[1]);
  if (bodyVersion !== undefined && bodyVersion !== headerVersion) {
    throw new ProblemError(400, 'VALIDATION_FAILED', 'expectedVersion and If-Match disagree.', [
      { path: 'expectedVersion', message: `is ${bodyVersion} but If-Match says ${headerVersion}` },
    ]);
  }
  return headerVersion;
}
