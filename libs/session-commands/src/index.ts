export { SessionWriter, type SessionWriterOptions, type WriteDecision,
  type WriteOptions, type WriteResult } from './session-writer.js';
