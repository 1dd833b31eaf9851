import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalStepFunctions, type RunningLocalStepFunctions } from '../../src/local/local-step-functions.ts';

// Wait states on an endpoint whose time scale is 0.0001: ten minutes pass in 60 ms. The machine is
// built here because its literal Timestamp must lie ten minutes ahead of the run.
const tenMinutes = 600;
let folder: string;
let endpoint: RunningLocalStepFunctions;
let client: SFNClient;

/** A machine waiting ten minutes once per kind of Wait, passing a marker through to its output. */
function tenMinuteWaits(timestamp: string) {
  return {
    StartAt: 'BySeconds',
    States: {
      BySeconds: { Type: 'Wait', Seconds: tenMinutes, Next: 'BySecondsPath' },
      BySecondsPath: { Type: 'Wait', SecondsPath: '$.delay.seconds', Next: 'ByTimestamp' },
      ByTimestamp: { Type: 'Wait', Timestamp: timestamp, Next: 'ByTimestampPath' },
      ByTimestampPath: { Type: 'Wait', InputPath: '$.delay', TimestampPath: '$.until', OutputPath: '$.seconds', End: true },
    },
  };
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'paperflow-sfn-wait-'));
  await writeFile(join(folder, 'waits.asl.json'), JSON.stringify(tenMinuteWaits(new Date(Date.now() + tenMinutes * 1000).toISOString())));
  await writeFile(join(folder, 'year.asl.json'), JSON.stringify({ StartAt: 'Year', States: { Year: { Type: 'Wait', Seconds: 365 * 24 * 3600, End: true } } }));
  endpoint = await startLocalStepFunctions({
    projectRoot: folder,
    stateMachines: [
      { name: 'waits', definitionFile: 'waits.asl.json', tasks: [] },
      { name: 'year', definitionFile: 'year.asl.json', tasks: [] },
    ],
    waitTimeScale: 0.0001,
  });
  client = new SFNClient({ endpoint: endpoint.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
});

afterAll(async () => {
  await endpoint?.close();
  await rm(folder, { recursive: true, force: true });
});

/** The execution once it has ended, or its RUNNING description after a bound that no scaled wait here needs. */
async function endedOrStillRunning(executionArn: string) {
  try {
    return await vi.waitFor(
      async () => {
        const described = await client.send(new DescribeExecutionCommand({ executionArn }));
        if (described.status === 'RUNNING') throw new Error('still running');
        return described;
      },
      { timeout: 10_000, interval: 20 },
    );
  } catch {
    return client.send(new DescribeExecutionCommand({ executionArn }));
  }
}

describe('local Step Functions Wait time scale', () => {
  it('scales Seconds, SecondsPath, Timestamp and TimestampPath waits of ten minutes each', async () => {
    const input = { delay: { seconds: tenMinutes, until: new Date(Date.now() + tenMinutes * 1000).toISOString() } };
    const started = await client.send(new StartExecutionCommand({ stateMachineArn: endpoint.stateMachineArns.waits, input: JSON.stringify(input) }));

    const described = await endedOrStillRunning(started.executionArn!);

    expect(described.status).toBe('SUCCEEDED');
    // InputPath and OutputPath of the last Wait still apply.
    expect(JSON.parse(described.output!)).toBe(tenMinutes);
  });

  it('fails the execution with States.Runtime when SecondsPath is not a number of seconds', async () => {
    const input = { delay: { seconds: 'soon', until: new Date().toISOString() } };
    const started = await client.send(new StartExecutionCommand({ stateMachineArn: endpoint.stateMachineArns.waits, input: JSON.stringify(input) }));

    const described = await endedOrStillRunning(started.executionArn!);

    expect(described).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
  });

  it('stops an execution during a scaled wait', async () => {
    const started = await client.send(new StartExecutionCommand({ stateMachineArn: endpoint.stateMachineArns.year }));

    await client.send(new StopExecutionCommand({ executionArn: started.executionArn, cause: 'no longer needed' }));
    await endpoint.idle();
    const described = await client.send(new DescribeExecutionCommand({ executionArn: started.executionArn }));

    expect(described).toMatchObject({ status: 'ABORTED', cause: 'no longer needed' });
  });

  it('refuses a scale that is not a number ≥ 0, as a mistyped environment variable gives', async () => {
    await expect(startLocalStepFunctions({ projectRoot: folder, stateMachines: [], waitTimeScale: Number('fast') })).rejects.toThrow(/Wait time scale/);
    await expect(startLocalStepFunctions({ projectRoot: folder, stateMachines: [], waitTimeScale: -1 })).rejects.toThrow(/Wait time scale/);
  });
});
