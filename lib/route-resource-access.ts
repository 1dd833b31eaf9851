import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ResourceAccess } from '../src/platform/resource-access.ts';
import { resourceEnvironment } from '../src/infrastructure/resource-definitions.ts';
import { bindDeliveryQueue, bindFilesBucket, bindRecordsTable } from './paperflow-function.ts';
import type { PaperflowStorage } from './paperflow-storage.ts';

export interface AccessibleResources {
  storage: PaperflowStorage;
  /** Absent until the extraction pipeline exists (infra tests may deploy routes without it). */
  extractionStateMachine?: IStateMachine;
}

/**
 * Grants a function exactly what its descriptor (a route row's or a task's `access`) declares, and
 * tells it where those resources are; nothing declared, nothing granted.
 */
export function bindResourceAccess(fn: NodejsFunction, access: ResourceAccess | undefined, resources: AccessibleResources): void {
  if (!access) return;
  if (access.recordsTable) bindRecordsTable(fn, resources.storage.recordsTable, access.recordsTable);
  if (access.filesBucket) bindFilesBucket(fn, resources.storage.filesBucket, access.filesBucket);
  if (access.webhookDeliveryQueue === 'send') bindDeliveryQueue(fn, resources.storage.deliveryQueue);
  if (access.extractionStateMachine === 'start') {
    if (!resources.extractionStateMachine) throw new Error(`${fn.node.path} starts the extraction state machine, which this stack lacks.`);
    fn.addEnvironment(resourceEnvironment.extractionStateMachineArn, resources.extractionStateMachine.stateMachineArn);
    resources.extractionStateMachine.grantStartExecution(fn);
  }
}
