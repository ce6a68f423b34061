/** An inline projection refused a batch (its statement failed, or `project` threw); the batch was rolled back. */
export class InlineProjectionError extends Error {
  constructor(
    readonly projection: string,
    override readonly cause: unknown,
  ) {
    super(`inline projection ${projection} failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'InlineProjectionError';
  }
}
