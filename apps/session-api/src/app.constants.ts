export const CONFIG = Symbol('CONFIG');
