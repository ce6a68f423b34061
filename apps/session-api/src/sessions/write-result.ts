/** The answer of every write of the contract (defined with the write path in #session-commands). */
export type { WriteResult } from '#session-commands';
