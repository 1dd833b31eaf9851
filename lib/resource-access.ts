import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import {
  queueUrlEnvironment,
  stateMachineArnEnvironment,
  type QueueName,
  type ResourceAccess,
  type StateMachineName,
} from '../src/platform/resource-access.ts';
import { bindFilesBucket, bindQueue, bindRecordsTable, bindSigningKey, bindStateMachine } from './paperflow-function.ts';
import type { PaperflowStorage } from './paperflow-storage.ts';

export interface AccessibleResources {
  storage: PaperflowStorage;
  /** The deployed state machines by name; a test stack may lack some. */
  stateMachines: Partial<Record<StateMachineName, IStateMachine>>;
}

/**
 * Grants a function exactly what its row (a route's or a trigger's `access`) declares, and tells it
 * where those resources are; nothing declared, nothing granted.
 */
export function bindResourceAccess(fn: NodejsFunction, access: ResourceAccess | undefined, resources: AccessibleResources): void {
  if (!access) return;
  if (access.recordsTable) bindRecordsTable(fn, resources.storage.recordsTable, access.recordsTable);
  if (access.filesBucket) bindFilesBucket(fn, resources.storage.filesBucket, access.filesBucket);
  if (access.signingKey) bindSigningKey(fn, resources.storage.signingKey, access.signingKey);
  for (const [name, stateMachineAccess] of Object.entries(access.stateMachines ?? {}) as [StateMachineName, NonNullable<ResourceAccess['stateMachines']>[StateMachineName]][]) {
    if (!stateMachineAccess) continue;
    const stateMachine = resources.stateMachines[name];
    if (!stateMachine) throw new Error(`${fn.node.path} uses the ${name} state machine, which this stack lacks.`);
    bindStateMachine(fn, stateMachine, stateMachineArnEnvironment[name], stateMachineAccess);
  }
  for (const [name, queueAccess] of Object.entries(access.queues ?? {}) as [QueueName, NonNullable<ResourceAccess['queues']>[QueueName]][]) {
    if (!queueAccess) continue;
    bindQueue(fn, queueNamed(resources.storage, name), queueUrlEnvironment[name], queueAccess);
  }
}

/** The queue a row names. */
export function queueNamed(storage: PaperflowStorage, name: QueueName): IQueue {
  const queues: Record<QueueName, IQueue> = { webhookDelivery: storage.deliveryQueue };
  return queues[name];
}
