export * from '../errors/domain.error.js';
export * from './session.commands.js';
export { decide } from './session.decider.js';
