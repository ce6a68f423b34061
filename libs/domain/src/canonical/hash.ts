import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** Lower-case hex sha256 of the UTF-8 bytes of `text` (one-shot `crypto.hash`: a third of createHash's cost per call). */
export const sha256Hex = (text: string): string => hash('sha256', text, 'hex');

/** The hash of a value is the hash of its canonical JSON: equal values hash equal whatever their key order. */
export const hashOf = (value: unknown): string => sha256Hex(canonicalJson(value));
