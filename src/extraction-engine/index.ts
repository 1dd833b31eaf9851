// The extraction engine's public module: the rest of the service imports the engine only from here
// (.dependency-cruiser.cjs, rule `engine-through-its-public-module`), so what lies behind it (readers,
// candidates, selection, value parsers) can be rearranged without touching a caller.
//
// Everything here is light: configuration, the document and outcome types, field extraction from a
// document already read. The readers load pdf.js, tesseract and native addons (sharp, canvas) when
// imported, and only the extract task needs them: they are the engine's other entry, ./reading.ts,
// which the service imports with `await import(...)` on first use (the bundler follows a dynamic
// import too, so a function that imported this module for a type would otherwise carry every reader).
// An operator's configuration text (YAML) is read through ./configuration-text.ts, for the same reason.
//
// The engine's package.json says `"sideEffects": false`: importing one of its modules does nothing but
// define things, so a bundler may leave out what a function imports from here and never uses (a task
// that needs only DocumentRejectedError does not carry the configuration schema and the label tables).
// Keep it true: a module of the engine must not be imported for what it does on import.

export {
  extractionConfigurationJsonSchema,
  type ExtractionConfiguration,
} from './configuration/extraction-configuration-schema.ts';
export {
  checkExtractionConfiguration,
  defaultExtractionConfiguration,
  duplicatePolicyOf,
  type ConfigurationParseResult,
  type ConfigurationProblem,
} from './configuration/parse-extraction-configuration.ts';
export { checkCorrectedValue, type CorrectedField, type CorrectedValueCheck, type CorrectedValueIssue } from './corrected-values.ts';
export { DocumentRejectedError, type ReadDocument, type TextLine } from './document.ts';
export {
  extractDocument,
  totalArithmeticCheck,
  type ExtractDocumentOptions,
  type ExtractionOutcome,
  type ExtractionWarning,
} from './extract-document.ts';
export type { OcrPool, ReadDocumentOptions } from './read-document.ts';

