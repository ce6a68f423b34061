export * from './messages/message-row.js';
