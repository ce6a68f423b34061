/** The answer of every write of the contract. */
export interface WriteResult {
  readonly sessionId: string;
  readonly version: number;
  readonly appended: number;
  readonly duplicate: boolean;
}
