import { ExecutionAlreadyExists, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { ExtractionRecord } from './extraction.ts';

/** The input of the extraction state machine (statemachines/extraction.asl.json). */
export interface ExtractionExecutionInput {
  workspaceId: string;
  extractionId: string;
  generation: number;
}

/** Starts the processing of one generation of an extraction. */
export interface ExtractionExecutions {
  start(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'generation'>): Promise<void>;
}

/** One execution per generation, named after it: starting twice cannot run the work twice. */
export function executionNameOf(record: Pick<ExtractionRecord, 'id' | 'generation'>): string {
  return `${record.id}-g${record.generation}`;
}

export class StepFunctionsExtractionExecutions implements ExtractionExecutions {
  constructor(
    private readonly client: SFNClient,
    private readonly stateMachineArn: string,
  ) {}

  async start(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'generation'>): Promise<void> {
    const input: ExtractionExecutionInput = { workspaceId: record.workspaceId, extractionId: record.id, generation: record.generation };
    try {
      await this.client.send(
        new StartExecutionCommand({ stateMachineArn: this.stateMachineArn, name: executionNameOf(record), input: JSON.stringify(input) }),
      );
    } catch (error) {
      // Same name, already started (a retried call): the execution exists, which is what we wanted.
      if (error instanceof ExecutionAlreadyExists || (error as Error).name === 'ExecutionAlreadyExists') return;
      throw error;
    }
  }
}
