import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStepFunctions, type RunningLocalStepFunctions } from '../../src/local/local-step-functions.ts';

// The local Step Functions across restarts: an endpoint records each execution it starts in its
// journal until the execution ends, and a later endpoint on the same journal runs the unfinished ones
// again from their input, under their own names (docs/local-step-functions.md, Restarts). The machine
// counts each run of its first task in a file, then holds on an hour-long Wait.
let folder: string;
let journal: string;
let callsFile: string;
const endpoints: RunningLocalStepFunctions[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'paperflow-sfn-restart-'));
  callsFile = join(folder, 'calls.txt');
  await writeFile(
    join(folder, 'count.mjs'),
    `import { appendFile } from 'node:fs/promises';\nexport async function handler(event) { await appendFile(${JSON.stringify(callsFile)}, event.id + '\\n'); return {}; }`,
  );
  await writeFile(
    join(folder, 'holding.asl.json'),
    JSON.stringify({ StartAt: 'Count', States: { Count: { Type: 'Task', Resource: '${CountFunctionArn}', ResultPath: null, Next: 'Hold' }, Hold: { Type: 'Wait', Seconds: 3600, End: true } } }),
  );
  await writeFile(join(folder, 'quick.asl.json'), JSON.stringify({ StartAt: 'Count', States: { Count: { Type: 'Task', Resource: '${CountFunctionArn}', End: true } } }));
});

afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((endpoint) => endpoint.close()));
  await rm(callsFile, { force: true });
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function endpointOn(journalDirectory: string | undefined) {
  const endpoint = await startLocalStepFunctions({
    projectRoot: folder,
    stateMachines: [
      { name: 'holding', definitionFile: 'holding.asl.json', tasks: [{ placeholder: 'CountFunctionArn', handler: 'count.mjs' }] },
      { name: 'quick', definitionFile: 'quick.asl.json', tasks: [{ placeholder: 'CountFunctionArn', handler: 'count.mjs' }] },
    ],
    ...(journalDirectory ? { executionJournalDirectory: journalDirectory } : {}),
  });
  endpoints.push(endpoint);
  const client = new SFNClient({ endpoint: endpoint.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  return { endpoint, client, holding: endpoint.stateMachineArns.holding!, quick: endpoint.stateMachineArns.quick! };
}

async function calls(): Promise<string[]> {
  return (await readFile(callsFile, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}

describe('local Step Functions across a restart', () => {
  it('runs again, from its input and under its name and start date, an execution the previous endpoint did not end', async () => {
    journal = await mkdtemp(join(folder, 'journal-'));
    const first = await endpointOn(journal);
    const started = await first.client.send(new StartExecutionCommand({ stateMachineArn: first.holding, name: 'kept', input: JSON.stringify({ id: 'kept' }) }));
    const ended = await first.client.send(new StartExecutionCommand({ stateMachineArn: first.quick, name: 'ended', input: JSON.stringify({ id: 'ended' }) }));
    await expect.poll(calls, { timeout: 5_000, interval: 10 }).toEqual(expect.arrayContaining(['kept', 'ended']));
    await expect.poll(async () => (await first.client.send(new DescribeExecutionCommand({ executionArn: ended.executionArn }))).status).toBe('SUCCEEDED');
    await first.endpoint.close();

    const second = await endpointOn(journal);
    const resumed = await second.endpoint.resumeRecordedExecutions();

    expect(resumed).toBe(1);
    // The two first calls were made side by side, in either order; the resumed execution calls again.
    await expect.poll(async () => (await calls()).length, { timeout: 5_000, interval: 10 }).toBe(3);
    const recorded = await calls();
    expect(recorded.slice(0, 2).sort()).toEqual(['ended', 'kept']);
    expect(recorded[2]).toBe('kept');
    expect(await second.client.send(new DescribeExecutionCommand({ executionArn: started.executionArn }))).toMatchObject({ name: 'kept', status: 'RUNNING', startDate: started.startDate, input: JSON.stringify({ id: 'kept' }) });
    await expect(second.client.send(new DescribeExecutionCommand({ executionArn: ended.executionArn }))).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
    // Running again, it answers a repeated start with the same input as the same execution.
    const repeated = await second.client.send(new StartExecutionCommand({ stateMachineArn: second.holding, name: 'kept', input: JSON.stringify({ id: 'kept' }) }));
    expect(repeated.executionArn).toBe(started.executionArn);
  });

  it('forgets an execution once it has ended, stopped included: nothing is resumed after it', async () => {
    journal = await mkdtemp(join(folder, 'journal-'));
    const first = await endpointOn(journal);
    const started = await first.client.send(new StartExecutionCommand({ stateMachineArn: first.holding, name: 'stopped', input: JSON.stringify({ id: 'stopped' }) }));
    await first.client.send(new StopExecutionCommand({ executionArn: started.executionArn }));
    await first.endpoint.idle();
    await first.endpoint.close();

    const second = await endpointOn(journal);

    expect(await second.endpoint.resumeRecordedExecutions()).toBe(0);
    expect(await readdir(journal)).toEqual([]);
  });

  it('drops a record it cannot read, and one of a state machine it no longer serves', async () => {
    journal = await mkdtemp(join(folder, 'journal-'));
    await writeFile(join(journal, 'torn.json'), '{"executionArn": "arn:aws:states');
    await writeFile(
      join(journal, 'retired.json'),
      JSON.stringify({ executionArn: 'arn:aws:states:us-east-1:000000000000:execution:paperflow-local-retired:x', stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:paperflow-local-retired', name: 'x', input: '{}', startDate: new Date().toISOString() }),
    );
    const second = await endpointOn(journal);

    expect(await second.endpoint.resumeRecordedExecutions()).toBe(0);
    expect(await readdir(journal)).toEqual([]);
  });
});
