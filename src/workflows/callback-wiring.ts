import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { sfnClient } from '../infrastructure/sfn-client.ts';
import { DynamoDbDocumentInsightsWaits } from './aws/dynamodb-document-insights-waits.ts';
import { StepFunctionsTaskCallbacks } from './aws/step-functions-task-callbacks.ts';
import type { DocumentInsightsWaits } from './steps/document-insights-waits.ts';
import type { TaskCallbacks } from './task-callbacks.ts';

// What resuming a waiting step needs, apart from wiring.ts: the delivery queue's consumer builds these
// and nothing of the extraction service or the workflow store.

export function documentInsightsWaits(): DocumentInsightsWaits {
  return new DynamoDbDocumentInsightsWaits(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

export function taskCallbacks(): TaskCallbacks {
  return new StepFunctionsTaskCallbacks(sfnClient());
}
