import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { jsonDocumentsInFilesBucket } from '../infrastructure/json-documents.ts';
import { DynamoDbRunStore } from './aws/dynamodb-run-store.ts';
import { DynamoDbWorkflowStore } from './aws/dynamodb-workflow-store.ts';
import type { RunStore } from './run-store.ts';
import { RunViews } from './run-views.ts';
import type { WorkflowStore } from './workflow-store.ts';

// The stores and the read side of runs, built from the environment the stack sets. Nothing here may
// import the engine (expressions, step types, Step Functions): the read handlers bundle only this.

export function workflowStore(): WorkflowStore {
  return new DynamoDbWorkflowStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

export function runStore(): RunStore {
  return new DynamoDbRunStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), jsonDocumentsInFilesBucket());
}

export function runViews(): RunViews {
  return new RunViews(runStore());
}
