export * from './canonical-json.js';
export * from './hash.js';
export * from './comparison-json.js';
