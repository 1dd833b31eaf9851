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
} as const;

/** Not part of the state machine: ends stuck extractions; scheduled every few minutes when deployed. */
export const extractionSweeper = {
  handler: 'functions/extractions/sweep-stuck-extractions.ts',
  scheduleMinutes: 5,
} as const;
