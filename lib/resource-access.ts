import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ResourceAccess, StateMachineName } from '../src/platform/resource-access.ts';
import { accessedResources, type ResourceDefinition } from '../src/platform/resource-table.ts';
import { bindFilesBucket, bindQueue, bindRecordsTable, bindSigningKey, bindStateMachine } from './paperflow-function.ts';
import type { PaperflowStorage } from './paperflow-storage.ts';

export interface AccessibleResources {
  /** The resource table the stack was built from: which variable names each resource. */
  table: readonly ResourceDefinition[];
  storage: PaperflowStorage;
  /** The deployed state machines by name; a test stack may lack some. */
  stateMachines: Partial<Record<StateMachineName, IStateMachine>>;
}

/**
 * Grants a function exactly what its row (a route's or a trigger's `access`) declares, and tells it
 * where those resources are through the variable each resource row names; nothing declared, nothing
 * granted. A name the resource table lacks fails the synth.
 */
export function bindResourceAccess(fn: NodejsFunction, access: ResourceAccess | undefined, resources: AccessibleResources): void {
  for (const accessed of accessedResources(access, resources.table, fn.node.path)) {
    const variable = accessed.resource.environmentVariable;
    switch (accessed.kind) {
      case 'table':
        bindRecordsTable(fn, resources.storage.recordsTable, variable, accessed.access);
        break;
      case 'bucket':
        bindFilesBucket(fn, resources.storage.filesBucket, variable, accessed.access);
        break;
      case 'key':
        bindSigningKey(fn, resources.storage.signingKey, variable, accessed.access);
        break;
      case 'queue':
        bindQueue(fn, resources.storage.queueNamed(accessed.resource.name), variable, accessed.access);
        break;
      case 'stateMachine': {
        const stateMachine = resources.stateMachines[accessed.resource.name];
        if (!stateMachine) throw new Error(`${fn.node.path} uses the ${accessed.resource.name} state machine, which this stack lacks.`);
        bindStateMachine(fn, stateMachine, variable, accessed.access);
        break;
      }
    }
  }
}
