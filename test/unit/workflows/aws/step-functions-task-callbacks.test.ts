import { InvalidToken, SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient, TaskDoesNotExist, TaskTimedOut } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { StepFunctionsTaskCallbacks } from '../../../../src/workflows/aws/step-functions-task-callbacks.ts';

// The SDK's answers for tokens that can no longer be answered, as AWS sends them.
const sfn = mockClient(SFNClient);
const callbacks = new StepFunctionsTaskCallbacks(new SFNClient({ region: 'us-east-1' }));
const metadata = { $metadata: { httpStatusCode: 400 } };

afterEach(() => {
  sfn.reset();
});

describe('StepFunctionsTaskCallbacks', () => {
  it('sends the output as JSON and the failure with its error name and cause', async () => {
    sfn.on(SendTaskSuccessCommand).resolves({}).on(SendTaskFailureCommand).resolves({});

    expect(await callbacks.succeed('token-1', { extractionId: 'ext_1', fields: [] })).toBe('answered');
    expect(await callbacks.fail('token-2', 'StepFailedError', '{"message":"m"}')).toBe('answered');

    expect(sfn.commandCalls(SendTaskSuccessCommand)[0]!.args[0].input).toEqual({ taskToken: 'token-1', output: '{"extractionId":"ext_1","fields":[]}' });
    expect(sfn.commandCalls(SendTaskFailureCommand)[0]!.args[0].input).toEqual({ taskToken: 'token-2', error: 'StepFailedError', cause: '{"message":"m"}' });
  });

  it.each([
    ['TaskTimedOut', () => new TaskTimedOut({ message: 'Task Timed Out', ...metadata })],
    ['InvalidToken', () => new InvalidToken({ message: 'Invalid token', ...metadata })],
    ['TaskDoesNotExist', () => new TaskDoesNotExist({ message: 'Task does not exist', ...metadata })],
  ])('drops a token answered %s once, without retrying', async (_name, error) => {
    sfn.on(SendTaskSuccessCommand).rejects(error()).on(SendTaskFailureCommand).rejects(error());

    expect(await callbacks.succeed('closed', {})).toBe('gone');
    expect(await callbacks.fail('closed', 'StepFailedError', '{}')).toBe('gone');
    expect(sfn.calls()).toHaveLength(2);
  });

  it('throws what another try may fix (throttling), so the hand-off message comes back', async () => {
    sfn.on(SendTaskSuccessCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    await expect(callbacks.succeed('token', {})).rejects.toThrow('Rate exceeded');
  });
});
