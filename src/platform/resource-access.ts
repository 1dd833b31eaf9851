// What a function may touch, declared on its row (a route or a trigger); the CDK stack turns it into
// least-privilege grants plus the environment variables that name the resources, and nothing else.

/**
 * A state machine row's name in the resource table (src/manifest/resources.ts). A plain string, as a
 * feature's rows cannot import the manifest that assembles them: the CDK stack and the local stack
 * refuse a name the table lacks (`accessedResources` in resource-table.ts), and so does a unit test.
 */
export type StateMachineName = string;

/** A queue row's name in the resource table (src/manifest/resources.ts); checked like `StateMachineName`. */
export type QueueName = string;

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
