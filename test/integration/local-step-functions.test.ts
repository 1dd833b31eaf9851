import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, ListExecutionsCommand, SFNClient, StartExecutionCommand, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStepFunctions, type RunningLocalStepFunctions } from '../../src/local/local-step-functions.ts';

// The local Step Functions endpoint with a small state machine whose tasks are modules in a temp
// folder: a task that doubles, and one that fails on its first call (retried) or always (caught);
// and a machine that waits an hour in real time, to be stopped.
let folder: string;
let endpoint: RunningLocalStepFunctions;
let client: SFNClient;
let arn: string;
let waitingArn: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'paperflow-sfn-'));
  await writeFile(join(folder, 'double.mjs'), 'export async function handler(event) { return { value: event.value * 2 }; }');
  await writeFile(
    join(folder, 'flaky.mjs'),
    [
      'let calls = 0;',
      'export async function handler(event) {',
      '  calls += 1;',
      "  if (event.mode === 'always' || calls % 2 === 1) { const error = new Error('not yet'); error.name = 'TransientError'; throw error; }",
      '  return { calls };',
      '}',
    ].join('\n'),
  );
  await writeFile(
    join(folder, 'machine.asl.json'),
    JSON.stringify({
      StartAt: 'Double',
      States: {
        Double: { Type: 'Task', Resource: '${DoubleFunctionArn}', ResultPath: '$.doubled', Next: 'Flaky' },
        Flaky: {
          Type: 'Task',
          Resource: '${FlakyFunctionArn}',
          ResultPath: '$.flaky',
          Retry: [{ ErrorEquals: ['TransientError'], IntervalSeconds: 5, MaxAttempts: 2 }],
          Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'Caught' }],
          End: true,
        },
        Caught: { Type: 'Pass', End: true },
      },
    }),
  );
  await writeFile(join(folder, 'waiting.asl.json'), JSON.stringify({ StartAt: 'Hold', States: { Hold: { Type: 'Wait', Seconds: 3600, End: true } } }));
  endpoint = await startLocalStepFunctions({
    projectRoot: folder,
    stateMachines: [
      { name: 'sample', definitionFile: 'machine.asl.json', tasks: [{ placeholder: 'DoubleFunctionArn', handler: 'double.mjs' }, { placeholder: 'FlakyFunctionArn', handler: 'flaky.mjs' }] },
      { name: 'waiting', definitionFile: 'waiting.asl.json', tasks: [] },
    ],
    retryIntervalMs: 1,
  });
  client = new SFNClient({ endpoint: endpoint.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  arn = endpoint.stateMachineArns.sample!;
  waitingArn = endpoint.stateMachineArns.waiting!;
});

afterAll(async () => {
  await endpoint?.close();
  await rm(folder, { recursive: true, force: true });
});

async function finished(executionArn: string) {
  await endpoint.idle();
  return client.send(new DescribeExecutionCommand({ executionArn }));
}

describe('local Step Functions', () => {
  it('runs the real ASL with each placeholder mapped to its module, retrying with compressed intervals', async () => {
    const started = await client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'run-1', input: JSON.stringify({ value: 21 }) }));

    const described = await finished(started.executionArn!);

    expect(started.executionArn).toBe(`${arn.replace(':stateMachine:', ':execution:')}:run-1`);
    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output!)).toMatchObject({ value: 21, doubled: { value: 42 }, flaky: { calls: 2 } });
  });

  it('catches an error that outlives its retries, by name', async () => {
    const started = await client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'run-2', input: JSON.stringify({ value: 1, mode: 'always' }) }));

    const described = await finished(started.executionArn!);

    expect(described.status).toBe('SUCCEEDED');
    expect(JSON.parse(described.output!).failure).toEqual({ Error: 'TransientError', Cause: 'not yet' });
  });

  it('answers ExecutionAlreadyExists for a reused name, as AWS does', async () => {
    await client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'run-3', input: '{"value":1}' }));
    await endpoint.idle();

    await expect(client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'run-3', input: '{"value":1}' }))).rejects.toMatchObject({ name: 'ExecutionAlreadyExists' });
  });

  it('refuses unknown state machines and invalid names', async () => {
    await expect(client.send(new StartExecutionCommand({ stateMachineArn: `${arn}-missing`, name: 'x' }))).rejects.toMatchObject({ name: 'StateMachineDoesNotExist' });
    await expect(client.send(new StartExecutionCommand({ stateMachineArn: arn, name: 'has space' }))).rejects.toMatchObject({ name: 'InvalidName' });
    await expect(client.send(new DescribeExecutionCommand({ executionArn: `${arn}:nothing` }))).rejects.toMatchObject({ name: 'ExecutionDoesNotExist' });
  });

  it('lists executions by status', async () => {
    const listed = await client.send(new ListExecutionsCommand({ stateMachineArn: arn, statusFilter: 'SUCCEEDED' }));

    expect(listed.executions!.map((execution) => execution.name)).toEqual(expect.arrayContaining(['run-1', 'run-2', 'run-3']));
  });

  it('stops a running execution: ABORTED with its stopDate, error and cause, in describe and list', async () => {
    const started = await client.send(new StartExecutionCommand({ stateMachineArn: waitingArn, name: 'stopped-1' }));

    const stopped = await client.send(new StopExecutionCommand({ executionArn: started.executionArn, error: 'Run.Cancelled', cause: 'cancelled by ana' }));
    const described = await finished(started.executionArn!);
    const listed = await client.send(new ListExecutionsCommand({ stateMachineArn: waitingArn, statusFilter: 'ABORTED' }));

    expect(stopped.stopDate).toBeInstanceOf(Date);
    expect(described).toMatchObject({ status: 'ABORTED', error: 'Run.Cancelled', cause: 'cancelled by ana', stopDate: stopped.stopDate });
    expect(listed.executions!.map((execution) => [execution.name, execution.status, execution.stopDate])).toContainEqual(['stopped-1', 'ABORTED', stopped.stopDate]);
  });

  it('leaves a stopped execution as it ended when stopped again, and names no error when none is given', async () => {
    const started = await client.send(new StartExecutionCommand({ stateMachineArn: waitingArn, name: 'stopped-2' }));
    const first = await client.send(new StopExecutionCommand({ executionArn: started.executionArn }));

    const second = await client.send(new StopExecutionCommand({ executionArn: started.executionArn, error: 'Late', cause: 'too late' }));
    const described = await finished(started.executionArn!);

    expect(second.stopDate).toEqual(first.stopDate);
    expect(described.status).toBe('ABORTED');
    expect(described).not.toHaveProperty('error');
    expect(described).not.toHaveProperty('cause');
  });

  it('answers ExecutionDoesNotExist when stopping an unknown execution', async () => {
    await expect(client.send(new StopExecutionCommand({ executionArn: `${waitingArn.replace(':stateMachine:', ':execution:')}:never-started` }))).rejects.toMatchObject({
      name: 'ExecutionDoesNotExist',
    });
  });
});
