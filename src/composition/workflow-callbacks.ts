import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from './configuration.ts';
import { sfnClient } from '../infrastructure/sfn-client.ts';
import { DynamoDbDocumentInsightsWaits } from '../workflows/aws/dynamodb-document-insights-waits.ts';
import { StepFunctionsTaskCallbacks } from '../workflows/aws/step-functions-task-callbacks.ts';
import type { DocumentInsightsWaits } from '../workflows/steps/document-insights-waits.ts';
import type { TaskCallbacks } from '../workflows/task-callbacks.ts';

// What resuming a waiting step needs, apart from workflows.ts: the delivery queue's consumer builds these
// and nothing of the extraction service or the workflow store.

export function documentInsightsWaits(): DocumentInsightsWaits {
  return new DynamoDbDocumentInsightsWaits(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}

export function taskCallbacks(): TaskCallbacks {
  return new StepFunctionsTaskCallbacks(sfnClient());
}
