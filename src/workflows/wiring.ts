import { extractionService } from '../extractions/wiring.ts';
import { sfnClient } from '../infrastructure/sfn-client.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { WorkflowStore } from './workflow-store.ts';
import type { DocumentInsightsDependencies } from './steps/document-insights.ts';
import { DocumentInsightsWaits } from './steps/document-insights-waits.ts';
import { StepFunctionsTaskCallbacks, type TaskCallbacks } from './task-callbacks.ts';

export function workflowStore(): WorkflowStore {
  return new WorkflowStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

export function documentInsightsWaits(): DocumentInsightsWaits {
  return new DocumentInsightsWaits(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

export function taskCallbacks(): TaskCallbacks {
  return new StepFunctionsTaskCallbacks(sfnClient());
}

/** The document_insights step over the stack's extraction service, table and Step Functions. */
export function documentInsightsDependencies(): DocumentInsightsDependencies {
  return { extractions: extractionService(), waits: documentInsightsWaits(), callbacks: taskCallbacks() };
}
