export { MAX_WRITE_ATTEMPTS, SessionWriter, type SessionWriterOptions, type WriteDecision,
  WriteContentionError, type WriteOptions, type WriteResult } from './session-writer.js';
export { executeSessionCommand } from './session-command.js';
export { compressSession, type CompressResult, type CompressSessionData } from './compress-session.js';
export { recordJournalParts } from './journal-parts.js';
export { eraseSession, type EraseResult, type EraseSessionRequest } from './erase-session.js';
