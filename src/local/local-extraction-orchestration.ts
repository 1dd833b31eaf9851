import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { extractionStateMachine, extractionSweeper } from '../extractions/extraction-state-machine.ts';
import { resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { startLocalStepFunctions, type RunningLocalStepFunctions } from './local-step-functions.ts';

export interface RunningLocalOrchestration {
  stepFunctions: RunningLocalStepFunctions;
  close(): Promise<void>;
}

/**
 * What the deployed stack gets from Step Functions and EventBridge, locally: the extraction state
 * machine behind a local SFN endpoint (handlers reach it through AWS_ENDPOINT_URL_SFN and the same
 * ARN variable as deployed) and the stuck-extraction sweeper on an interval.
 */
export async function startLocalOrchestration(projectRoot: string): Promise<RunningLocalOrchestration> {
  const retryInterval = Number(process.env.PAPERFLOW_LOCAL_RETRY_INTERVAL_MS);
  const stepFunctions = await startLocalStepFunctions({
    projectRoot,
    stateMachines: [{ name: 'extraction', definitionFile: extractionStateMachine.definitionFile, taskFunctions: extractionStateMachine.taskFunctions }],
    ...(Number.isFinite(retryInterval) && retryInterval >= 0 && process.env.PAPERFLOW_LOCAL_RETRY_INTERVAL_MS !== '' ? { retryIntervalMs: retryInterval } : {}),
    waitTimeScale: Number(process.env.PAPERFLOW_LOCAL_WAIT_TIME_SCALE || 1),
    region: process.env.AWS_REGION,
  });
  process.env.AWS_ENDPOINT_URL_SFN = stepFunctions.endpoint;
  process.env[resourceEnvironment.extractionStateMachineArn] = stepFunctions.stateMachineArns.extraction!;

  const intervalSeconds = Number(process.env.PAPERFLOW_EXTRACTION_SWEEP_INTERVAL_SECONDS ?? 60);
  let sweeping: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = import(pathToFileURL(resolve(projectRoot, extractionSweeper.handler)).href)
      .then((module: { handler: () => Promise<unknown> }) => module.handler())
      .catch((error: unknown) => console.error(JSON.stringify({ level: 'error', message: 'extraction sweep failed', error: String(error) })))
      .finally(() => (sweeping = undefined));
  }, Math.max(1, intervalSeconds) * 1000);
  timer.unref();

  return {
    stepFunctions,
    async close() {
      clearInterval(timer);
      await sweeping;
      await stepFunctions.close();
    },
  };
}
