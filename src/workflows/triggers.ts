import type { ResourceAccess } from '../platform/resource-access.ts';
import type { ScheduleTrigger, StateMachineTaskTrigger } from '../platform/trigger-table.ts';

// The workflow run state machine's tasks (statemachines/workflow-run.asl.json, one `${Placeholder}`
// each) and the sweeper that settles runs whose execution died.

// Every task reads and writes the run's items and its large values (the files bucket).
const runRecords: ResourceAccess = { recordsTable: 'readWrite', filesBucket: 'readWrite' };

function runTask(name: string, handlerFile: string, state: string, access: ResourceAccess = runRecords, timeoutSeconds?: number): StateMachineTaskTrigger {
  return {
    kind: 'stateMachineTask',
    name,
    stateMachine: 'workflowRun',
    placeholder: `${name.charAt(0).toUpperCase()}${name.slice(1)}FunctionArn`,
    handler: `functions/workflows/${handlerFile}.ts`,
    description: `Workflow run state machine task (${state})`,
    access,
    ...(timeoutSeconds ? { timeoutSeconds } : {}),
  };
}

export const workflowRunTasks: StateMachineTaskTrigger[] = [
  runTask('planWorkflowRun', 'plan-workflow-run', 'PlanRun', runRecords, 120),
  // transform and web_function steps; a web_function waits for its downstream (timeout and retries).
  runTask('runWorkflowStep', 'run-workflow-step', 'RunStep', runRecords, 900),
  // Starts a real extraction, which resumes the execution through the task token when it ends.
  // An extraction that ended before its token was stored is answered at once (callback).
  runTask('startDocumentInsightsStep', 'start-document-insights-step', 'StartDocumentInsights', {
    ...runRecords,
    stateMachines: { extraction: 'start', workflowRun: 'callback' },
    queues: { webhookDelivery: 'send' },
  }),
  // Each for_each item: a nested run, an execution of this same state machine.
  runTask('startNestedWorkflowRun', 'start-nested-workflow-run', 'StartNestedRun', { ...runRecords, stateMachines: { workflowRun: ['start', 'callback'] } }),
  runTask('recordWorkflowStepOutcome', 'record-workflow-step-outcome', 'RecordStepOutcome', runRecords, 120),
  // The terminal state, its event (handed to webhook delivery) and a nested run's parent.
  runTask('recordWorkflowRunOutcome', 'record-workflow-run-outcome', 'RecordRunOutcome', {
    ...runRecords,
    stateMachines: { workflowRun: 'callback' },
    queues: { webhookDelivery: 'send' },
  }, 120),
];

/** Fails runs whose execution died; finishes ended runs whose event or parent notification is pending. */
export const workflowRunSweeper: ScheduleTrigger = {
  kind: 'schedule',
  name: 'sweepWorkflowRuns',
  handler: 'functions/workflows/sweep-workflow-runs.ts',
  description: 'Fails workflow runs whose execution died; finishes pending events and parent notifications',
  everyMinutes: 5,
  localInterval: { environmentVariable: 'PAPERFLOW_WORKFLOW_RUN_SWEEP_INTERVAL_SECONDS', defaultSeconds: 60 },
  access: { ...runRecords, stateMachines: { workflowRun: ['describe', 'callback'] }, queues: { webhookDelivery: 'send' } },
  timeoutSeconds: 120,
};
