export * from './messages/message-row.js';
export * from './session-stream.js';
export * from './canonical/index.js';
