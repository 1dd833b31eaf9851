import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';
import { executionNameOf, executionStatuses, type ExecutionStatus, type RunExecutionInput, type RunExecutions } from '../run-executions.ts';

// Answers meaning "nobody waits on this token any more": the waiting execution was stopped or timed out.
const closedTokenErrors = new Set(['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist']);

export class StepFunctionsRunExecutions implements RunExecutions {
  constructor(
    private readonly client: SFNClient,
    private readonly stateMachineArn: () => string,
  ) {}

  async start(input: RunExecutionInput, redriveCount = 0): Promise<void> {
    try {
      const name = executionNameOf(input.runId, redriveCount);
      await this.client.send(new StartExecutionCommand({ stateMachineArn: this.stateMachineArn(), name, input: JSON.stringify({ workspaceId: input.workspaceId, runId: input.runId }) }));
    } catch (error) {
      // Same name, already started (a retried call): the execution exists, which is what we wanted.
      if (error instanceof ExecutionAlreadyExists || (error as Error).name === 'ExecutionAlreadyExists') return;
      throw error;
    }
  }

  async stop(runId: string, cause: string, redriveCount = 0): Promise<void> {
    try {
      await this.client.send(new StopExecutionCommand({ executionArn: this.executionArnOf(runId, redriveCount), error: 'WorkflowRunClosed', cause }));
    } catch (error) {
      if ((error as Error).name !== 'ExecutionDoesNotExist') throw error;
    }
  }

  async status(runId: string, redriveCount = 0): Promise<ExecutionStatus | undefined> {
    try {
      const described = await this.client.send(new DescribeExecutionCommand({ executionArn: this.executionArnOf(runId, redriveCount) }));
      const status = executionStatuses.find((known) => known === described.status);
      if (!status) throw new Error(`Step Functions answered an execution status this code does not know: ${String(described.status)}.`);
      return status;
    } catch (error) {
      if ((error as Error).name === 'ExecutionDoesNotExist') return undefined;
      throw error;
    }
  }

  async resume(taskToken: string, output: unknown): Promise<void> {
    await this.ignoringClosedToken(() => this.client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) })));
  }

  async fail(taskToken: string, error: string, cause: string): Promise<void> {
    await this.ignoringClosedToken(() => this.client.send(new SendTaskFailureCommand({ taskToken, error, cause: cause.slice(0, 32_000) })));
  }

  /** The execution of a run: named after the run (and redrive), so its ARN follows from the state machine's. */
  executionArnOf(runId: string, redriveCount = 0): string {
    return `${this.stateMachineArn().replace(':stateMachine:', ':execution:')}:${executionNameOf(runId, redriveCount)}`;
  }

  private async ignoringClosedToken(send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      if (!closedTokenErrors.has((error as Error).name)) throw error;
    }
  }
}
