import { invocationFields, logger, withLogContext, type InvocationContext } from '../infrastructure/logger.ts';

// The log context of the entry points that are not HTTP routes (HTTP has its own in
// src/http/http-handler.ts): each handler is wrapped once, and every line logged while it runs carries
// the function, Lambda's request id and what identifies the work (the execution, the message).

/**
 * A Task of a state machine. Lambda's context does not know the execution, so every Task's
 * Parameters pass it (`"executionArn.$": "$$.Execution.Id"`, statemachines/*.asl.json). A failure is
 * logged here with its stack, beside the execution's ARN, then thrown as `failureAs` names it (the
 * error names the state machine's Retry and Catch match): the execution history keeps only that
 * name and message. Warn, not error: Step Functions retries it or catches it into a recorded failure.
 */
export function stateMachineTask<Result>(handle: (input: unknown) => Promise<Result>, failureAs: (error: unknown) => unknown = (error) => error) {
  return (input: unknown, invocation?: InvocationContext): Promise<Result> =>
    withLogContext({ ...invocationFields(invocation), executionArn: executionArnOf(input) }, async () => {
      try {
        return await handle(input);
      } catch (error) {
        logger.warn('state-machine task failed', { error });
        throw failureAs(error);
      }
    });
}

/** A schedule or a bucket notification: the function and Lambda's request id. */
export function loggedInvocation<Event, Result>(handle: (event: Event) => Promise<Result>) {
  return (event: Event, invocation?: InvocationContext): Promise<Result> => withLogContext(invocationFields(invocation), () => handle(event));
}

/**
 * One message of a queue consumer's batch: its lines carry the message id. Consumers handle each
 * record inside this, so that a batch's lines say which message they were about.
 */
export function forQueueMessage<Result>(message: { messageId: string }, handle: () => Promise<Result>): Promise<Result> {
  return withLogContext({ messageId: message.messageId }, handle);
}

function executionArnOf(input: unknown): string | undefined {
  const executionArn = (input as { executionArn?: unknown } | null)?.executionArn;
  return typeof executionArn === 'string' ? executionArn : undefined;
}
