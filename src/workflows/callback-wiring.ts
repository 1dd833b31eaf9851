import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { sfnClient } from '../infrastructure/sfn-client.ts';
import { DocumentInsightsWaits } from './steps/document-insights-waits.ts';
import { StepFunctionsTaskCallbacks, type TaskCallbacks } from './task-callbacks.ts';

// What resuming a waiting step needs, apart from wiring.ts: the delivery queue's consumer builds these
// and nothing of the extraction service or the workflow store.

export function documentInsightsWaits(): DocumentInsightsWaits {
  return new DocumentInsightsWaits(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

export function taskCallbacks(): TaskCallbacks {
  return new StepFunctionsTaskCallbacks(sfnClient());
}
