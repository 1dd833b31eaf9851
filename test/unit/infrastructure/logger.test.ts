import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger, sdkLogger, withLogContext } from '../../../src/infrastructure/logger.ts';
import { captureLogLines, type CapturedLogLines } from '../../support/log-lines.ts';

let log: CapturedLogLines;

beforeEach(() => {
  vi.stubEnv('PAPERFLOW_LOG_LEVEL', '');
  log = captureLogLines();
});

afterEach(() => {
  log.restore();
  vi.unstubAllEnvs();
});

describe('the logger', () => {
  it('writes one JSON object per line: level, message, time, then the fields; warn and error to stderr', () => {
    logger.info('upload session finalized', { objectKey: 'uploads/a', outcome: 'ready' });
    logger.error('request failed', { requestId: 'req-1' });

    expect(log.lines).toEqual([
      { level: 'info', message: 'upload session finalized', time: expect.any(String), objectKey: 'uploads/a', outcome: 'ready', stream: 'stdout' },
      { level: 'error', message: 'request failed', time: expect.any(String), requestId: 'req-1', stream: 'stderr' },
    ]);
    expect(new Date(log.lines[0]!.time).toISOString()).toBe(log.lines[0]!.time);
  });

  it('drops lines below PAPERFLOW_LOG_LEVEL, info by default', () => {
    logger.debug('hidden by default');
    logger.info('shown by default');
    vi.stubEnv('PAPERFLOW_LOG_LEVEL', 'warn');
    logger.info('hidden at warn');
    logger.warn('shown at warn');
    vi.stubEnv('PAPERFLOW_LOG_LEVEL', 'DEBUG');
    logger.debug('shown at debug');
    vi.stubEnv('PAPERFLOW_LOG_LEVEL', 'verbose');
    logger.debug('an unknown level means info');

    expect(log.lines.map((line) => line.message)).toEqual(['shown by default', 'shown at warn', 'shown at debug']);
  });

  it('serialises errors with name, message, stack, code and cause', () => {
    const cause = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const error = new TypeError('Cannot read properties of undefined', { cause });

    logger.error('request failed', { error });

    expect(log.lines[0]!.error).toEqual({
      name: 'TypeError',
      message: 'Cannot read properties of undefined',
      stack: expect.stringContaining('TypeError: Cannot read properties of undefined'),
      cause: { name: 'Error', message: 'socket hang up', stack: expect.any(String), code: 'ECONNRESET' },
    });
  });

  it('writes what JSON cannot hold without throwing: cycles, bigints, dates', () => {
    const looped: Record<string, unknown> = { name: 'loop' };
    looped.self = looped;

    logger.info('odd values', { looped, count: 12n, at: new Date('2026-01-02T03:04:05.000Z'), shared: [looped, looped] });

    expect(log.lines[0]).toMatchObject({
      looped: { name: 'loop', self: '[circular]' },
      count: '12',
      at: '2026-01-02T03:04:05.000Z',
      shared: [{ name: 'loop', self: '[circular]' }, { name: 'loop', self: '[circular]' }],
    });
  });

  it('redacts secrets under any spelling of their keys, at any depth, context included', async () => {
    await withLogContext({ apiKey: 'pk_live_context' }, async () => {
      logger.info('delivery', {
        headers: { Authorization: 'api-key pk_live_secret', 'X-Paperflow-Signature': 'v1,abc', 'content-type': 'application/json' },
        subscription: { id: 'sub_1', signing_secret: 'whsec_1', nested: [{ secret: 's' }] },
        api_key: 'pk_live_x',
      });
    });

    const written = JSON.stringify(log.lines);
    for (const secret of ['pk_live_context', 'pk_live_secret', 'v1,abc', 'whsec_1', '"s"', 'pk_live_x']) expect(written).not.toContain(secret);
    expect(log.lines[0]).toMatchObject({
      apiKey: '[redacted]',
      headers: { Authorization: '[redacted]', 'X-Paperflow-Signature': '[redacted]', 'content-type': 'application/json' },
      subscription: { id: 'sub_1', signing_secret: '[redacted]', nested: [{ secret: '[redacted]' }] },
      api_key: '[redacted]',
    });
  });
});

describe('the log context', () => {
  it('attaches its fields to every line logged inside it, across awaits and timers, and nested contexts add to it', async () => {
    await withLogContext({ requestId: 'req-1', functionName: 'createExtraction' }, async () => {
      logger.info('before');
      await new Promise((resolve) => setTimeout(resolve, 5));
      await withLogContext({ executionArn: 'arn:aws:states:eu-central-1:1:execution:extraction:ext_1-1' }, async () => {
        await Promise.resolve();
        logger.info('nested');
      });
      logger.info('after');
    });
    logger.info('outside');

    expect(log.lines.map(({ message, requestId, functionName, executionArn }) => ({ message, requestId, functionName, executionArn }))).toEqual([
      { message: 'before', requestId: 'req-1', functionName: 'createExtraction', executionArn: undefined },
      { message: 'nested', requestId: 'req-1', functionName: 'createExtraction', executionArn: 'arn:aws:states:eu-central-1:1:execution:extraction:ext_1-1' },
      { message: 'after', requestId: 'req-1', functionName: 'createExtraction', executionArn: undefined },
      { message: 'outside', requestId: undefined, functionName: undefined, executionArn: undefined },
    ]);
  });

  it('keeps parallel invocations apart', async () => {
    const invocation = (requestId: string, delays: number[]) =>
      withLogContext({ requestId }, async () => {
        for (const [step, delay] of delays.entries()) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          logger.info(`${requestId} step ${step}`);
        }
      });

    await Promise.all([invocation('req-a', [10, 1, 10]), invocation('req-b', [1, 10, 1]), invocation('req-c', [5, 5, 5])]);

    expect(log.lines).toHaveLength(9);
    for (const line of log.lines) expect(line.message.startsWith(`${line.requestId as string} `)).toBe(true);
    expect(new Set(log.lines.slice(0, 3).map((line) => line.requestId)).size).toBeGreaterThan(1); // they did interleave
  });

  it('lets a line\'s own fields win over the context, and leaves out undefined context fields', async () => {
    await withLogContext({ requestId: 'req-1', awsRequestId: undefined }, async () => logger.warn('explicit', { requestId: 'req-2' }));

    expect(log.lines[0]).toMatchObject({ requestId: 'req-2' });
    expect(Object.keys(log.lines[0]!)).not.toContain('awsRequestId');
  });
});

describe('the AWS SDK logger', () => {
  it('lands the SDK\'s own warnings and errors at their level with the invocation context', async () => {
    await withLogContext({ requestId: 'req-sdk' }, async () => {
      sdkLogger.warn('Unable to parse the retry-after header');
      sdkLogger.error('Endpoint discovery failed', { statusCode: 500 });
      sdkLogger.debug('endpoint resolved');
    });

    expect(log.lines).toEqual([
      expect.objectContaining({ level: 'warn', message: 'Unable to parse the retry-after header', source: 'aws-sdk', requestId: 'req-sdk' }),
      expect.objectContaining({ level: 'error', message: 'Endpoint discovery failed', source: 'aws-sdk', details: { statusCode: 500 }, requestId: 'req-sdk' }),
    ]);
  });

  it('keeps its per-command records at debug, without the command\'s input or output', () => {
    const failure = Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' });
    const input = { TableName: 'records', Item: { pk: 'EXT#1', document: 'the whole invoice' } };
    sdkLogger.error({ clientName: 'DynamoDBClient', commandName: 'PutCommand', input, error: failure, metadata: { httpStatusCode: 400 } });
    sdkLogger.info({ clientName: 'S3Client', commandName: 'GetObjectCommand', input: { Key: 'k' }, output: { Body: 'bytes' }, metadata: { httpStatusCode: 200 } });
    expect(log.lines).toEqual([]);

    vi.stubEnv('PAPERFLOW_LOG_LEVEL', 'debug');
    sdkLogger.error({ clientName: 'DynamoDBClient', commandName: 'PutCommand', input, error: failure, metadata: { httpStatusCode: 400 } });
    sdkLogger.info({ clientName: 'S3Client', commandName: 'GetObjectCommand', input: { Key: 'k' }, output: { Body: 'bytes' }, metadata: { httpStatusCode: 200 } });

    expect(log.lines).toEqual([
      expect.objectContaining({
        level: 'debug',
        message: 'AWS SDK command failed',
        clientName: 'DynamoDBClient',
        commandName: 'PutCommand',
        metadata: { httpStatusCode: 400 },
        error: expect.objectContaining({ name: 'ConditionalCheckFailedException' }),
      }),
      expect.objectContaining({ level: 'debug', message: 'AWS SDK command succeeded', clientName: 'S3Client', commandName: 'GetObjectCommand' }),
    ]);
    expect(JSON.stringify(log.lines)).not.toContain('the whole invoice');
    expect(JSON.stringify(log.lines)).not.toContain('bytes');
  });

  it('keeps the warning of a failed streamed request at debug: its caller logs the failures that matter', () => {
    sdkLogger.warn('An error was encountered in a non-retryable streaming request.');
    vi.stubEnv('PAPERFLOW_LOG_LEVEL', 'debug');
    sdkLogger.warn('An error was encountered in a non-retryable streaming request.');

    expect(log.lines).toEqual([expect.objectContaining({ level: 'debug', message: 'An error was encountered in a non-retryable streaming request.' })]);
  });
});
