import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { filesBucketNameWhenTouched, paperflowConfiguration } from './configuration.ts';
import { jsonDocumentsInFilesBucket } from '../infrastructure/json-documents.ts';
import { DynamoDbRunStore } from '../workflows/aws/dynamodb-run-store.ts';
import { DynamoDbWorkflowStore } from '../workflows/aws/dynamodb-workflow-store.ts';
import type { RunStore } from '../workflows/run-store.ts';
import { RunViews } from '../workflows/run-views.ts';
import type { WorkflowStore } from '../workflows/workflow-store.ts';

// The stores and the read side of runs, built from the function's configuration. Nothing here may
// import the engine (expressions, step types, Step Functions): the read handlers bundle only this.

export function workflowStore(): WorkflowStore {
  return new DynamoDbWorkflowStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}

export function runStore(): RunStore {
  return new DynamoDbRunStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName(), jsonDocumentsInFilesBucket(filesBucketNameWhenTouched()));
}

export function runViews(): RunViews {
  return new RunViews(runStore());
}
