import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { withCommandLog } from '../../../src/infrastructure/sdk-command-log.ts';
import { sdkLogger } from '../../../src/infrastructure/logger.ts';
import { captureLogLines, type CapturedLogLines } from '../../support/log-lines.ts';

// A client whose requests never leave the process: every request is answered with `status` and `body`.
function clientAnswering(status: number, body: object, logger: { debug: (...content: unknown[]) => void; info: (...content: unknown[]) => void; warn: (...content: unknown[]) => void; error: (...content: unknown[]) => void }) {
  const requestHandler = {
    handle: async () => ({
      response: {
        statusCode: status,
        reason: '',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'req-fake' },
        body: Readable.from([Buffer.from(JSON.stringify(body))]),
      },
    }),
  };
  return new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
    logger,
    requestHandler: requestHandler as never,
  });
}

const put = () =>
  new PutItemCommand({ TableName: 'records', Item: { pk: { S: 'DLV#1' }, sk: { S: 'ATTEMPT#0001' }, responseBody: { S: 'the receiver said hello' } } });

let log: CapturedLogLines;
beforeEach(() => {
  vi.stubEnv('PAPERFLOW_LOG_LEVEL', '');
  log = captureLogLines();
});
afterEach(() => {
  log.restore();
  vi.unstubAllEnvs();
});

describe('withCommandLog', () => {
  it('takes the place of the SDK logger middleware: the client logger gets each command record without its input and output', async () => {
    const clientLogger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    await withCommandLog(clientAnswering(200, {}, clientLogger)).send(put());
    await expect(withCommandLog(clientAnswering(400, { __type: 'ConditionalCheckFailedException', message: 'failed' }, clientLogger)).send(put())).rejects.toThrow();

    // The SDK's middleware would have handed over `input` and `output`, copied through its schema filter.
    expect(clientLogger.info.mock.calls).toEqual([
      [{ clientName: 'DynamoDBClient', commandName: 'PutItemCommand', metadata: expect.objectContaining({ httpStatusCode: 200 }) }],
    ]);
    expect(clientLogger.error.mock.calls).toEqual([
      [{ clientName: 'DynamoDBClient', commandName: 'PutItemCommand', error: expect.objectContaining({ name: 'ConditionalCheckFailedException' }), metadata: expect.objectContaining({ httpStatusCode: 400 }) }],
    ]);
  });

  it('with the service logger, writes each command at debug by client and command only, and throws a failure on to the caller', async () => {
    vi.stubEnv('PAPERFLOW_LOG_LEVEL', 'debug');
    await withCommandLog(clientAnswering(200, {}, sdkLogger)).send(put());
    const failed = withCommandLog(clientAnswering(400, { __type: 'ConditionalCheckFailedException', message: 'failed' }, sdkLogger)).send(put());
    await expect(failed).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });

    // At debug the SDK writes lines of its own too (endpoint, retries): only the command records here.
    expect(log.lines.filter((line) => line.message.startsWith('AWS SDK command'))).toEqual([
      expect.objectContaining({ level: 'debug', message: 'AWS SDK command succeeded', source: 'aws-sdk', clientName: 'DynamoDBClient', commandName: 'PutItemCommand', metadata: expect.objectContaining({ httpStatusCode: 200 }) }),
      expect.objectContaining({
        level: 'debug',
        message: 'AWS SDK command failed',
        clientName: 'DynamoDBClient',
        commandName: 'PutItemCommand',
        error: expect.objectContaining({ name: 'ConditionalCheckFailedException' }),
      }),
    ]);
    expect(JSON.stringify(log.lines)).not.toContain('the receiver said hello');
  });
});
