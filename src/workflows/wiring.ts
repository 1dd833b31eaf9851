import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { eventRecorder } from '../events/wiring.ts';
import { extractionService } from '../extractions/wiring.ts';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment, secondsFromEnvironment } from '../infrastructure/resource-definitions.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { sfnClient } from '../infrastructure/sfn-client.ts';
import { outboundUrlPolicyFromEnvironment } from '../outbound/outbound-settings.ts';
import { RunEngine } from './run-engine.ts';
import { StepFunctionsRunExecutions } from './run-executions.ts';
import { RunService } from './run-service.ts';
import { RunStore, type RunValueObjects } from './run-store.ts';
import { startDocumentInsightsStep } from './steps/document-insights.ts';
import { callWebFunction } from './steps/web-function.ts';
import { WorkflowStore } from './workflow-store.ts';
import type { DocumentInsightsDependencies } from './steps/document-insights.ts';
import { documentInsightsWaits, taskCallbacks } from './callback-wiring.ts';

// Built from the environment the stack (deployed or local) sets; clients are shared per process.

export function workflowStore(): WorkflowStore {
  return new WorkflowStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

/** The document_insights step over the stack's extraction service, table and Step Functions. */
export function documentInsightsDependencies(): DocumentInsightsDependencies {
  return { extractions: extractionService(), waits: documentInsightsWaits(), callbacks: taskCallbacks() };
}

/** Large run values live in the files bucket, named when one is touched (most reads never need S3). */
function runValueObjects(): RunValueObjects {
  const bucketName = () => requiredEnvironment(resourceEnvironment.filesBucketName);
  return {
    put: async (objectKey, body) => {
      await s3Client().send(new PutObjectCommand({ Bucket: bucketName(), Key: objectKey, Body: body, ContentType: 'application/json' }));
    },
    get: async (objectKey) => {
      const object = await s3Client().send(new GetObjectCommand({ Bucket: bucketName(), Key: objectKey }));
      return object.Body!.transformToString('utf8');
    },
  };
}

export function runStore(): RunStore {
  return new RunStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), runValueObjects());
}

export function runExecutions(): StepFunctionsRunExecutions {
  return new StepFunctionsRunExecutions(sfnClient(), () => requiredEnvironment(resourceEnvironment.workflowRunStateMachineArn));
}

export function runEngine(): RunEngine {
  return new RunEngine({
    store: runStore(),
    workflows: workflowStore(),
    executions: runExecutions(),
    events: eventRecorder(),
    steps: {
      callWebFunction: (evaluatedWith) => callWebFunction(evaluatedWith, { policy: outboundUrlPolicyFromEnvironment() }),
      startDocumentInsights: (start) => startDocumentInsightsStep(start, documentInsightsDependencies()),
    },
  });
}

export function runService(): RunService {
  return new RunService({ engine: runEngine(), store: runStore(), workflows: workflowStore(), executions: runExecutions() });
}

/** Runs in flight this long without a live execution are failed by the sweeper (default 5 minutes). */
export function lostRunAfterMs(): number {
  return secondsFromEnvironment('PAPERFLOW_WORKFLOW_RUN_LOST_AFTER_SECONDS', 5 * 60) * 1000;
}
