/** The real clock of the shell, epoch seconds; tests may provide another. */
export const CLOCK = Symbol('RECOVERY_CLOCK');
export type Clock = () => number;
