import type { ExtractionRecord } from './extraction.ts';

/** The input of the extraction state machine (statemachines/extraction.asl.json). */
export interface ExtractionExecutionInput {
  workspaceId: string;
  extractionId: string;
  generation: number;
}

/** Starts the processing of one generation of an extraction (the Step Functions adapter: aws/step-functions-extraction-executions.ts). */
export interface ExtractionExecutions {
  start(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'generation'>): Promise<void>;
}

/** One execution per generation, named after it: starting twice cannot run the work twice. */
export function executionNameOf(record: Pick<ExtractionRecord, 'id' | 'generation'>): string {
  return `${record.id}-g${record.generation}`;
}
