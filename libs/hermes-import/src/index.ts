export { importHermes, type HermesImportOptions } from './hermes-import.runner.js';
export type { HermesImportReport, Skipped } from './hermes-import.report.js';
export { directorySource, uploadSource, type HermesSource, type HermesUpload } from './hermes.source.js';
export type { ImportDeps } from './hermes-session.importer.js';
