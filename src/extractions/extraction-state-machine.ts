/**
 * The extraction state machine: its ASL file (the source of truth) and, per `${Placeholder}` in it,
 * the handler module of the Lambda function that fills it. The CDK stack passes the functions' ARNs
 * as definition substitutions; the local Step Functions endpoint maps the same placeholders to the
 * same modules, invoked in process.
 */
export const extractionStateMachine = {
  id: 'ExtractionStateMachine',
  definitionFile: 'statemachines/extraction.asl.json',
  taskFunctions: {
    MarkExtractionProcessingFunctionArn: 'functions/extractions/mark-extraction-processing.ts',
    FetchExtractionDocumentFunctionArn: 'functions/extractions/fetch-extraction-document.ts',
    ExtractDocumentFunctionArn: 'functions/extractions/extract-extraction-document.ts',
    RecordExtractionOutcomeFunctionArn: 'functions/extractions/record-extraction-outcome.ts',
  },
  /**
   * Lambda settings per task: the timeout matches the Task's TimeoutSeconds in the ASL; reading a
   * document (PDF, OCR) wants memory and the engine's native packages.
   */
  taskFunctionSettings: {
    MarkExtractionProcessingFunctionArn: { timeoutSeconds: 30, memorySize: 512 },
    FetchExtractionDocumentFunctionArn: { timeoutSeconds: 120, memorySize: 1024 },
    ExtractDocumentFunctionArn: { timeoutSeconds: 300, memorySize: 3008 },
    RecordExtractionOutcomeFunctionArn: { timeoutSeconds: 30, memorySize: 512 },
  },
  /** Everything the task functions touch; deletes of output objects are the sweeper's and the API's. */
  taskAccess: { recordsTable: 'readWrite', filesBucket: 'readWrite' },
} as const;

/** Not part of the state machine: ends stuck extractions; scheduled every few minutes when deployed. */
export const extractionSweeper = {
  handler: 'functions/extractions/sweep-stuck-extractions.ts',
  scheduleMinutes: 5,
  timeoutSeconds: 300,
  /** Finishing deletes removes output objects (workspaces/<ws>/extractions/…) besides table items. */
  access: { recordsTable: 'readWrite', filesBucket: 'readWrite', deletesObjectsUnder: 'workspaces/*/extractions/*' },
} as const;
