import { ExecutionAlreadyExists, StartExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { ExtractionRecord } from '../extraction.ts';
import { executionNameOf, type ExtractionExecutionInput, type ExtractionExecutions } from '../extraction-executions.ts';

/** Executions of the extraction state machine (statemachines/extraction.asl.json), one per generation. */
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
