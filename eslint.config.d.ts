/** Types of what the architecture tests read from eslint.config.js. */
export declare const LIB_IMPORTS: Readonly<Record<string, readonly string[]>>;
declare const config: unknown;
export default config;
