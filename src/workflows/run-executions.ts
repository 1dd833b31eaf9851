import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  StartExecutionCommand,
  StopExecutionCommand,
  type SFNClient,
} from '@aws-sdk/client-sfn';

/** The input of the workflow run state machine (statemachines/workflow-run.asl.json). */
export interface RunExecutionInput {
  workspaceId: string;
  runId: string;
}

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE';

/** Orchestration of runs: one execution per run, named after it; task tokens of waiting steps. */
export interface RunExecutions {
  start(input: RunExecutionInput): Promise<void>;
  stop(runId: string, cause: string): Promise<void>;
  /** Undefined when no such execution exists (never started, or forgotten by a restarted local stack). */
  status(runId: string): Promise<ExecutionStatus | undefined>;
  /** Resumes a waiting task; a token that is no longer waited on (stopped parent) is ignored. */
  resume(taskToken: string, output: unknown): Promise<void>;
  fail(taskToken: string, error: string, cause: string): Promise<void>;
}

// Answers meaning "nobody waits on this token any more": the waiting execution was stopped or timed out.
const closedTokenErrors = new Set(['TaskTimedOut', 'InvalidToken', 'TaskDoesNotExist']);

export class StepFunctionsRunExecutions implements RunExecutions {
  constructor(
    private readonly client: SFNClient,
    private readonly stateMachineArn: () => string,
  ) {}

  async start(input: RunExecutionInput): Promise<void> {
    try {
      await this.client.send(new StartExecutionCommand({ stateMachineArn: this.stateMachineArn(), name: input.runId, input: JSON.stringify(input) }));
    } catch (error) {
      // Same name, already started (a retried call): the execution exists, which is what we wanted.
      if (error instanceof ExecutionAlreadyExists || (error as Error).name === 'ExecutionAlreadyExists') return;
      throw error;
    }
  }

  async stop(runId: string, cause: string): Promise<void> {
    try {
      await this.client.send(new StopExecutionCommand({ executionArn: this.executionArnOf(runId), error: 'WorkflowRunClosed', cause }));
    } catch (error) {
      if ((error as Error).name !== 'ExecutionDoesNotExist') throw error;
    }
  }

  async status(runId: string): Promise<ExecutionStatus | undefined> {
    try {
      const described = await this.client.send(new DescribeExecutionCommand({ executionArn: this.executionArnOf(runId) }));
      return described.status as ExecutionStatus;
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

  /** The execution of a run: named after the run, so its ARN follows from the state machine's. */
  executionArnOf(runId: string): string {
    return `${this.stateMachineArn().replace(':stateMachine:', ':execution:')}:${runId}`;
  }

  private async ignoringClosedToken(send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
    } catch (error) {
      if (!closedTokenErrors.has((error as Error).name)) throw error;
    }
  }
}
