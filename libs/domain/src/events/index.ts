export * from './row.schemas.js';
export * from './session.events.js';
export * from './session-event.schemas.js';
export * from './parse-session-event.js';
export * from './free-json.schema.js';
