export * from './canonical-json.js';
export * from './hash.js';
