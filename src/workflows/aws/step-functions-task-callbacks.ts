import { SendTaskFailureCommand, SendTaskSuccessCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { logger } from '../../infrastructure/logger.ts';
import type { CallbackOutcome, TaskCallbacks } from '../task-callbacks.ts';

/**
 * The answers AWS gives for a token that can no longer be answered: the task timed out or was already
 * answered (TaskTimedOut), the execution ended (TaskDoesNotExist), or the token is not one (InvalidToken).
 * No retry can change them, so they are logged and dropped rather than retried until the dead-letter queue.
 */
const closedTokenErrors = new Set(['TaskTimedOut', 'TaskDoesNotExist', 'InvalidToken']);

export class StepFunctionsTaskCallbacks implements TaskCallbacks {
  constructor(private readonly client: SFNClient) {}

  succeed(taskToken: string, output: unknown): Promise<CallbackOutcome> {
    return this.answer('SendTaskSuccess', () => this.client.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) })));
  }

  fail(taskToken: string, error: string, cause: string): Promise<CallbackOutcome> {
    return this.answer('SendTaskFailure', () => this.client.send(new SendTaskFailureCommand({ taskToken, error, cause })));
  }

  private async answer(operation: string, send: () => Promise<unknown>): Promise<CallbackOutcome> {
    try {
      await send();
      return 'answered';
    } catch (error) {
      if (!closedTokenErrors.has((error as Error).name)) throw error;
      logger.warn('task token can no longer be answered; dropped', { operation, reason: (error as Error).name });
      return 'gone';
    }
  }
}
