import { resourceEnvironment } from '../infrastructure/resource-definitions.ts';

// What a function may touch, declared on its row (a route or a trigger); the CDK stack turns it into
// least-privilege grants plus the environment variables that name the resources, and nothing else.

/** The state machines of `statemachines/`, by the name their rows use (see src/manifest/triggers.ts). */
export type StateMachineName = 'extraction' | 'workflowRun';

/** The queues of `src/infrastructure/resource-definitions.ts`, by the name rows use. */
export type QueueName = 'webhookDelivery';

/**
 * `start`: StartExecution. `stop`: StopExecution of its executions. `describe`: DescribeExecution of
 * its executions. `callback`: SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat, for tasks that
 * wait for a token. A row needing several lists them.
 */
export type StateMachineAccess = 'start' | 'stop' | 'describe' | 'callback';

/**
 * `send`: SendMessage. `consume`: receive, delete and change visibility; a queue consumer row gets it
 * for its own queue together with the event source mapping, so rows never write it themselves.
 * `consumeAndSend`: both, for a consumer whose row also declares `send` on its own queue (the webhook
 * delivery consumer queues the next attempts).
 */
export type QueueAccess = 'send' | 'consume' | 'consumeAndSend';

/**
 * `encrypt`: kms:GenerateDataKey (storing a new signing secret). `decrypt`: kms:Decrypt (reading one
 * to sign deliveries). Nothing else is ever granted on the key.
 */
export type SigningKeyAccess = 'encrypt' | 'decrypt';

export interface ResourceAccess {
  recordsTable?: 'read' | 'readWrite';
  /** `readWriteDelete` also removes objects (deletes, refused uploads); others never delete. */
  filesBucket?: 'read' | 'readWrite' | 'readWriteDelete';
  stateMachines?: Partial<Record<StateMachineName, StateMachineAccess | readonly StateMachineAccess[]>>;
  queues?: Partial<Record<QueueName, QueueAccess>>;
  /** The KMS key of webhook signing secrets (envelope encryption). */
  signingKey?: SigningKeyAccess;
}

/** The variable through which a function granted a state machine finds its ARN. */
export const stateMachineArnEnvironment: Record<StateMachineName, string> = {
  extraction: resourceEnvironment.extractionStateMachineArn,
  workflowRun: resourceEnvironment.workflowRunStateMachineArn,
};

/** The variable through which a function granted a queue finds its URL. */
export const queueUrlEnvironment: Record<QueueName, string> = {
  webhookDelivery: resourceEnvironment.webhookDeliveryQueueUrl,
};
