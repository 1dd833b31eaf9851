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

/**
 * The name of a run's execution: the run id for its first, `<runId>-r<n>` for its n-th redrive (an
 * execution name cannot be used again, and naming it keeps a retried start of the same redrive one).
 */
export function executionNameOf(runId: string, redriveCount = 0): string {
  return redriveCount === 0 ? runId : `${runId}-r${redriveCount}`;
}

/**
 * Orchestration of runs: one execution per run and redrive (`redriveCount`, 0 for the first), named
 * after them; task tokens of waiting steps.
 */
export interface RunExecutions {
  start(input: RunExecutionInput, redriveCount?: number): Promise<void>;
  stop(runId: string, cause: string, redriveCount?: number): Promise<void>;
  /** Undefined when no such execution exists (never started, or forgotten by a restarted local stack). */
  status(runId: string, redriveCount?: number): Promise<ExecutionStatus | undefined>;
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
