import { extractionService } from '../extractions/wiring.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { WorkflowStore } from './workflow-store.ts';
import type { DocumentInsightsDependencies } from './steps/document-insights.ts';
import { documentInsightsWaits, taskCallbacks } from './callback-wiring.ts';

export function workflowStore(): WorkflowStore {
  return new WorkflowStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

/** The document_insights step over the stack's extraction service, table and Step Functions. */
export function documentInsightsDependencies(): DocumentInsightsDependencies {
  return { extractions: extractionService(), waits: documentInsightsWaits(), callbacks: taskCallbacks() };
}
