import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger } from '../../../src/infrastructure/logger.ts';
import { stateMachines, triggers } from '../../../src/manifest/triggers.ts';
import { forQueueMessage, loggedInvocation, stateMachineTask } from '../../../src/platform/invocation-logging.ts';
import { triggersOfKind } from '../../../src/platform/trigger-table.ts';
import { captureLogLines, type CapturedLogLines } from '../../support/log-lines.ts';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const executionArn = 'arn:aws:states:eu-central-1:123456789012:execution:paperflow-extraction:ext_01JZ0000000000000000000000-1';
const lambdaContext = (functionName: string) => ({ functionName, awsRequestId: `lambda-${functionName}` });

let log: CapturedLogLines;

beforeEach(() => {
  log = captureLogLines();
});

afterEach(() => {
  log.restore();
  vi.unstubAllEnvs();
});

describe('state-machine tasks', () => {
  it('attach the execution from their input, the function and Lambda\'s request id to every line', async () => {
    const task = stateMachineTask(async (input) => {
      logger.info('marking', { generation: (input as { generation: number }).generation });
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.info('marked');
      return { proceed: true };
    });

    const result = await task({ workspaceId: 'ws_a', extractionId: 'ext_1', generation: 2, executionArn }, lambdaContext('markExtractionProcessing'));

    expect(result).toEqual({ proceed: true });
    expect(log.lines).toEqual([
      expect.objectContaining({ message: 'marking', generation: 2, executionArn, functionName: 'markExtractionProcessing', awsRequestId: 'lambda-markExtractionProcessing' }),
      expect.objectContaining({ message: 'marked', executionArn, functionName: 'markExtractionProcessing' }),
    ]);
  });

  it('log a failure with its stack and the execution, then throw it as the state machine expects', async () => {
    class TransientProcessingError extends Error {
      override name = 'TransientProcessingError';
    }
    const task = stateMachineTask(
      async () => {
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      },
      () => new TransientProcessingError('A service call failed: ThrottlingException.'),
    );

    await expect(task({ executionArn }, lambdaContext('recordExtractionOutcome'))).rejects.toThrow(TransientProcessingError);

    expect(log.lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'state-machine task failed',
        executionArn,
        functionName: 'recordExtractionOutcome',
        error: expect.objectContaining({ name: 'ThrottlingException', message: 'Rate exceeded', stack: expect.any(String) }),
      }),
    ]);
  });

  it('are every task handler of the trigger table: each one\'s lines carry its execution', async () => {
    vi.stubEnv('PAPERFLOW_TABLE_NAME', 'unit-records');
    vi.stubEnv('PAPERFLOW_BUCKET_NAME', 'unit-files');
    const tasks = triggersOfKind(triggers, 'stateMachineTask');
    expect(tasks.length).toBeGreaterThan(0);

    for (const task of tasks) {
      const { handler } = (await import(`${repositoryRoot}${task.handler}`)) as { handler: (input: unknown, context: unknown) => Promise<unknown> };
      // An input no task accepts: each handler fails at its zod edge, before reaching AWS.
      await expect(handler({ executionArn, extractionId: 'not-an-extraction' }, lambdaContext(task.name))).rejects.toThrow();
    }

    expect(log.lines.map(({ message, executionArn: loggedArn, functionName }) => ({ message, executionArn: loggedArn, functionName }))).toEqual(
      tasks.map((task) => ({ message: 'state-machine task failed', executionArn, functionName: task.name })),
    );
  }, 60_000);

  it('get their execution from every Task state of every state machine (Lambda\'s context does not carry it)', async () => {
    for (const machine of stateMachines) {
      const definition = JSON.parse(await readFile(`${repositoryRoot}${machine.definitionFile}`, 'utf8')) as {
        States: Record<string, { Type: string; Parameters?: Record<string, unknown> }>;
      };
      const taskStates = Object.entries(definition.States).filter(([, state]) => state.Type === 'Task');
      expect(taskStates.length).toBeGreaterThan(0);
      for (const [name, state] of taskStates) expect({ name, executionArn: state.Parameters?.['executionArn.$'] }).toEqual({ name, executionArn: '$$.Execution.Id' });
    }
  });
});

describe('schedules, notifications and queue messages', () => {
  it('attach the function and Lambda\'s request id, and a message\'s id to the lines of its handling', async () => {
    const consumer = loggedInvocation(async (event: { Records: { messageId: string }[] }) => {
      await Promise.all(
        event.Records.map((record, index) =>
          forQueueMessage(record, async () => {
            await new Promise((resolve) => setTimeout(resolve, 5 - index * 4));
            logger.info('delivered');
          }),
        ),
      );
      logger.info('batch done');
    });

    await consumer({ Records: [{ messageId: 'msg-1' }, { messageId: 'msg-2' }] }, lambdaContext('deliverWebhooks'));

    expect(log.lines.map(({ message, messageId, functionName, awsRequestId }) => ({ message, messageId, functionName, awsRequestId }))).toEqual([
      { message: 'delivered', messageId: 'msg-2', functionName: 'deliverWebhooks', awsRequestId: 'lambda-deliverWebhooks' },
      { message: 'delivered', messageId: 'msg-1', functionName: 'deliverWebhooks', awsRequestId: 'lambda-deliverWebhooks' },
      { message: 'batch done', messageId: undefined, functionName: 'deliverWebhooks', awsRequestId: 'lambda-deliverWebhooks' },
    ]);
  });
});
