import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { WorkflowStore } from './workflow-store.ts';

export function workflowStore(): WorkflowStore {
  return new WorkflowStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}
