export * from './messages/message-row.js';
export * from './session-stream.js';
export * from './canonical/index.js';
export * from './events/index.js';
export * from './projection/index.js';
export * from './deciders/index.js';
export * from './journal/index.js';
export * from './merge/index.js';
