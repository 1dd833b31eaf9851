import { eventRecorder } from './events.ts';
import { extractionService } from './extractions.ts';
import { configuredUrlPolicy, paperflowConfiguration } from './configuration.ts';
import { sfnClient } from '../infrastructure/sfn-client.ts';
import { RunEngine } from '../workflows/run-engine.ts';
import { StepFunctionsRunExecutions } from '../workflows/aws/step-functions-run-executions.ts';
import { runStore, runViews, workflowStore } from './workflow-reads.ts';
import { RunService } from '../workflows/run-service.ts';
import { startDocumentInsightsStep } from '../workflows/steps/document-insights.ts';
import { callWebFunction } from '../workflows/steps/web-function.ts';
import { defaultRetryDelayMs } from '../workflows/steps/web-function-retry-delays.ts';
import type { DocumentInsightsDependencies } from '../workflows/steps/document-insights.ts';
import { documentInsightsWaits, taskCallbacks } from './workflow-callbacks.ts';

// Built from the function's configuration (configuration.ts); clients are shared per process. The
// read handlers use workflow-reads.ts alone, which leaves the engine (jsonata, step types, SFN) out of them.

export { runStore, runViews, workflowStore };

/** The document_insights step over the stack's extraction service, table and Step Functions. */
export function documentInsightsDependencies(): DocumentInsightsDependencies {
  return { extractions: extractionService(), waits: documentInsightsWaits(), callbacks: taskCallbacks() };
}

export function runExecutions(): StepFunctionsRunExecutions {
  const { resources } = paperflowConfiguration();
  return new StepFunctionsRunExecutions(sfnClient(), () => resources.stateMachineArn('workflowRun'));
}

export function runEngine(): RunEngine {
  return new RunEngine({
    store: runStore(),
    workflows: workflowStore(),
    executions: runExecutions(),
    events: eventRecorder(),
    views: runViews(),
    steps: {
      callWebFunction: (evaluatedWith) => {
        const { settings } = paperflowConfiguration();
        return callWebFunction(evaluatedWith, {
          policy: configuredUrlPolicy(),
          retryDelayMs: (attempt) => defaultRetryDelayMs(attempt, settings.webFunctionFirstRetryDelayMs),
        });
      },
      startDocumentInsights: (start) => startDocumentInsightsStep(start, documentInsightsDependencies()),
    },
  });
}

export function runService(): RunService {
  return new RunService({ engine: runEngine(), views: runViews(), store: runStore(), workflows: workflowStore(), executions: runExecutions() });
}

/** Runs in flight this long without a live execution are failed by the sweeper (default 5 minutes). */
export function lostRunAfterMs(): number {
  return paperflowConfiguration().settings.lostWorkflowRunAfterMs;
}
