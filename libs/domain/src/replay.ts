/**
 * What replaying a stream needs, and nothing else: the fold, the views it renders, canonical JSON and the hash.
 * No deciders, commands or schemas (zod): an audit worker thread imports this entry (`#domain/replay`), so each
 * worker isolate loads about half the domain's code, and is smaller and ready sooner (bench/README.md). The main
 * entry (`#domain`) exports all of it too but `withJournalsOf`, which only the audits use.
 */
export { canonicalJson } from './canonical/canonical-json.js';
export { sha256Hex } from './canonical/hash.js';
export { initialSessionState } from './session-state/session.state.js';
export type { SessionState } from './session-state/session.state.js';
export { evolveAll } from './session/session.evolve.js';
export { storedFormOf, withJournalsOf } from './session-state/stored-form.js';
export { render, renderTranscript } from './session/session.render.js';
export type { SessionView } from './session/session.view.js';
export type { SessionEvent } from './events/session.events.js';
export {
  carriesContent,
  CONTENT_FIELDS,
  DROPPED_CONTENT,
  erasedContentOf,
  inVersionRanges,
  isDroppedContent,
  joinContent,
  splitContent,
  versionRanges,
} from './events/event-content.rule.js';
export { storedSchemaOf, upcastEventData } from './events/event-schema.upcasters.js';
