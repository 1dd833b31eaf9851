import { eventRecorder } from '../events/wiring.ts';
import { extractionService } from '../extractions/wiring.ts';
import { requiredEnvironment, resourceEnvironment, secondsFromEnvironment } from '../infrastructure/resource-definitions.ts';
import { sfnClient } from '../infrastructure/sfn-client.ts';
import { outboundUrlPolicyFromEnvironment } from '../outbound/outbound-settings.ts';
import { RunEngine } from './run-engine.ts';
import { StepFunctionsRunExecutions } from './aws/step-functions-run-executions.ts';
import { runStore, runViews, workflowStore } from './read-wiring.ts';
import { RunService } from './run-service.ts';
import { startDocumentInsightsStep } from './steps/document-insights.ts';
import { callWebFunction } from './steps/web-function.ts';
import type { DocumentInsightsDependencies } from './steps/document-insights.ts';
import { documentInsightsWaits, taskCallbacks } from './callback-wiring.ts';

// Built from the environment the stack (deployed or local) sets; clients are shared per process. The
// read handlers use read-wiring.ts alone, which leaves the engine (jsonata, step types, SFN) out of them.

export { runStore, runViews, workflowStore };

/** The document_insights step over the stack's extraction service, table and Step Functions. */
export function documentInsightsDependencies(): DocumentInsightsDependencies {
  return { extractions: extractionService(), waits: documentInsightsWaits(), callbacks: taskCallbacks() };
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
    views: runViews(),
    steps: {
      callWebFunction: (evaluatedWith) => callWebFunction(evaluatedWith, { policy: outboundUrlPolicyFromEnvironment() }),
      startDocumentInsights: (start) => startDocumentInsightsStep(start, documentInsightsDependencies()),
    },
  });
}

export function runService(): RunService {
  return new RunService({ engine: runEngine(), views: runViews(), store: runStore(), workflows: workflowStore(), executions: runExecutions() });
}

/** Runs in flight this long without a live execution are failed by the sweeper (default 5 minutes). */
export function lostRunAfterMs(): number {
  return secondsFromEnvironment('PAPERFLOW_WORKFLOW_RUN_LOST_AFTER_SECONDS', 5 * 60) * 1000;
}
