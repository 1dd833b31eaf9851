import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { filesBucketNameWhenTouched, paperflowConfiguration } from './configuration.ts';
import { jsonDocumentsInFilesBucket } from '../infrastructure/json-documents.ts';
import { RunStore } from '../workflows/run-store.ts';
import { RunViews } from '../workflows/run-views.ts';
import { WorkflowStore } from '../workflows/workflow-store.ts';

// The stores and the read side of runs, built from the function's configuration. Nothing here may
// import the engine (expressions, step types, Step Functions): the read handlers bundle only this.

export function workflowStore(): WorkflowStore {
  return new WorkflowStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}

export function runStore(): RunStore {
  return new RunStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName(), jsonDocumentsInFilesBucket(filesBucketNameWhenTouched()));
}

export function runViews(): RunViews {
  return new RunViews(runStore());
}
