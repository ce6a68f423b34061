export * from './liveness-facts.js';
export { LivenessRegistry, type LeaseRecord, type PutLease } from './liveness-registry.js';
export { checkAgentStore, type AgentStoreCheck } from './agent-store-turn.js';
export {
  classifyCause,
  decideRecovery,
  GRACE_SECONDS,
  JOURNAL_GIVE_UP_SECONDS,
  type RecoveryDecision,
  type RecoveryInput,
  type RecoveryOutcome,
  type SkipReason,
} from './recovery-policy.js';
export {
  RecoverySupervisor,
  SweepTimeError,
  type DecisionWriter,
  type SupervisorOptions,
  type SweepResult,
} from './recovery-supervisor.js';
