import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, S3Event } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { maximumFileBytes } from '../../../src/files/file-limits.ts';
import { anApiGatewayEvent } from '../../support/api-gateway-events.ts';
import { sampleCsv } from '../../support/sample-files.ts';

// The handlers as Lambda runs them (a buffered, base64 multipart body; no local gateway), with the AWS
// clients mocked to fail the way S3 and DynamoDB fail, to pin down the envelopes a client then sees.

const s3 = mockClient(S3Client);
const dynamo = mockClient(DynamoDBDocumentClient);
const workspaceId = 'ws_unit';
const fileId = 'file_01J9ZQ3V7M8N2P4R6T8V0X2Z4B';
const objectKey = `workspaces/${workspaceId}/files/${fileId}`;
const uploadKey = `workspaces/${workspaceId}/uploads/${fileId}`;
const environment = {
  PAPERFLOW_TABLE_NAME: 'unit-records',
  PAPERFLOW_BUCKET_NAME: 'unit-files',
  AWS_REGION: 'eu-central-1',
  AWS_ACCESS_KEY_ID: 'AKIDUNITTEST',
  AWS_SECRET_ACCESS_KEY: 'unit-test-secret',
};

let createFile: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
let getFile: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
let finalizeUploadedFile: (event: S3Event) => Promise<void>;

beforeAll(async () => {
  for (const [name, value] of Object.entries(environment)) vi.stubEnv(name, value);
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  createFile = (await import('../../../functions/files/create-file.ts')).handler;
  getFile = (await import('../../../functions/files/get-file.ts')).handler;
  finalizeUploadedFile = (await import('../../../functions/files/finalize-uploaded-file.ts')).handler;
});

afterAll(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

beforeEach(() => {
  s3.reset();
  dynamo.reset();
});

const boundary = 'handler-boundary';

function apiEvent(overrides: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent {
  return anApiGatewayEvent(
    { resource: '/api/public/v1/files', path: '/api/public/v1/files', ...overrides },
    { workspaceId, keyId: 'key_unit', scopes: ['*'] },
  );
}

function csvUploadEvent(): APIGatewayProxyEvent {
  const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="ledger.csv"\r\nContent-Type: text/csv\r\n\r\n${sampleCsv}\r\n--${boundary}--\r\n`;
  return apiEvent({
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body: Buffer.from(body).toString('base64'),
    isBase64Encoded: true,
  });
}

function uploadEventOf(content: Buffer, fileName: string, partsAfterFile: { name: string; value: string }[] = []): APIGatewayProxyEvent {
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n\r\n`),
    content,
    ...partsAfterFile.map((part) => Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}`)),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return apiEvent({ headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` }, body: body.toString('base64'), isBase64Encoded: true });
}

function getFileEvent(): APIGatewayProxyEvent {
  return apiEvent({ httpMethod: 'GET', path: `/api/public/v1/files/${fileId}`, resource: '/api/public/v1/files/{fileId}', pathParameters: { fileId } });
}

function storedRecord(status: 'ready' | 'pending_upload') {
  return {
    pk: `WS#${workspaceId}#FILE#${fileId}`,
    sk: 'FILE',
    fileId,
    workspaceId,
    fileName: 'ledger.csv',
    mimeType: 'text/csv',
    size: sampleCsv.length,
    ...(status === 'ready' ? { sha256: 'ab'.repeat(32) } : {}),
    status,
    createdAt: '2026-11-21T08:00:00.000Z',
    objectKey,
  };
}

const context = {} as Context;
const bodyOf = (result: APIGatewayProxyResult) => JSON.parse(result.body) as { error: { code: string; message: string; retryable: boolean } } & Record<string, unknown>;

describe('create-file handler', () => {
  it('stores a buffered (deployed) multipart upload and records it', async () => {
    s3.on(PutObjectCommand).resolves({});
    dynamo.on(PutCommand).resolves({});

    const result = await createFile(csvUploadEvent(), context);

    expect(result.statusCode).toBe(201);
    expect(bodyOf(result)).toMatchObject({ fileName: 'ledger.csv', mimeType: 'text/csv', size: sampleCsv.length, status: 'ready' });
    const put = s3.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(put.Key).toMatch(/^workspaces\/ws_unit\/files\/file_[0-9A-Z]{26}$/);
    expect(put.ContentLength).toBe(sampleCsv.length);
  });

  it('streams an upload larger than the sniffed head into one PutObject of the told size', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(400_000)]);
    s3.on(PutObjectCommand).resolves({});
    dynamo.on(PutCommand).resolves({});

    const result = await createFile(uploadEventOf(pdf, 'scan.pdf'), context);

    expect(result.statusCode).toBe(201);
    expect(bodyOf(result)).toMatchObject({ size: pdf.length, sha256: createHash('sha256').update(pdf).digest('hex') });
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(1);
    const put = s3.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(put).toMatchObject({ ContentLength: pdf.length, ContentType: 'application/pdf' });
    expect((await buffer(put.Body as Readable)).equals(pdf)).toBe(true);
  });

  it('stores a file that a part follows as an exact copy, checked against our SHA-256, and removes the streamed one', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(400_000)]);
    s3.on(PutObjectCommand).resolves({});
    s3.on(GetObjectCommand).callsFake(async (input: { Range: string }) => {
      // S3 serves the range of what the streamed put sent: the file, then filler up to the told size.
      const streamed = await buffer(s3.commandCalls(PutObjectCommand)[0]!.args[0].input.Body as Readable);
      const lastByte = Number(/^bytes=0-(\d+)$/.exec(input.Range)![1]);
      return { Body: Readable.from([streamed.subarray(0, lastByte + 1)]) };
    });
    s3.on(DeleteObjectCommand).resolves({});
    dynamo.on(PutCommand).resolves({});

    const result = await createFile(uploadEventOf(pdf, 'scan.pdf', [{ name: 'fileName', value: 'March.pdf' }]), context);

    expect(result.statusCode).toBe(201);
    expect(bodyOf(result)).toMatchObject({ fileName: 'March.pdf', size: pdf.length });
    const [streamed, exact] = s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input);
    expect(streamed!.ContentLength).toBeGreaterThan(pdf.length);
    expect(exact).toMatchObject({ Key: expect.stringMatching(new RegExp(`^${streamed!.Key}/[0-9a-f-]{36}$`)), ContentLength: pdf.length });
    expect(exact!.ChecksumSHA256).toBe(createHash('sha256').update(pdf).digest('base64'));
    expect((await buffer(exact!.Body as Readable)).equals(pdf)).toBe(true);
    expect(s3.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input.Key)).toEqual([streamed!.Key]);
    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input.Item).toMatchObject({ objectKey: exact!.Key });
  });

  it('answers 502 and removes what the streamed PutObject left when it fails', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(400_000)]);
    s3.on(PutObjectCommand).rejects(
      new S3ServiceException({ name: 'SlowDown', $fault: 'server', $metadata: { httpStatusCode: 503 }, message: 'Please reduce your request rate.' }),
    );
    s3.on(DeleteObjectCommand).resolves({});

    const result = await createFile(uploadEventOf(pdf, 'scan.pdf'), context);

    expect(result.statusCode).toBe(502);
    expect(bodyOf(result).error).toMatchObject({ code: 'DOWNSTREAM_ERROR', retryable: true });
    const streamedKey = s3.commandCalls(PutObjectCommand)[0]!.args[0].input.Key;
    expect(s3.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input.Key)).toEqual([streamedKey]);
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('answers 502 DOWNSTREAM_ERROR without S3\'s message when storing fails', async () => {
    s3.on(PutObjectCommand).rejects(
      new S3ServiceException({ name: 'InternalError', $fault: 'server', $metadata: { httpStatusCode: 500 }, message: 'disk /dev/sdb3 failed on host s3-17' }),
    );

    const result = await createFile(csvUploadEvent(), context);

    expect(result.statusCode).toBe(502);
    expect(bodyOf(result).error).toMatchObject({ code: 'DOWNSTREAM_ERROR', retryable: true });
    expect(result.body).not.toContain('sdb3');
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('answers 502 and removes the stored object when the record cannot be written', async () => {
    s3.on(PutObjectCommand).resolves({});
    s3.on(DeleteObjectCommand).resolves({});
    dynamo.on(PutCommand).rejects(new ProvisionedThroughputExceededException({ message: 'table unit-records throttled', $metadata: {} }));

    const result = await createFile(csvUploadEvent(), context);

    expect(result.statusCode).toBe(502);
    expect(result.body).not.toContain('unit-records');
    const stored = s3.commandCalls(PutObjectCommand)[0]!.args[0].input.Key;
    expect(s3.commandCalls(DeleteObjectCommand)[0]!.args[0].input.Key).toBe(stored);
  });
});

describe('get-file handler', () => {
  it('mints a contentUrl of 15 minutes for a ready file', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedRecord('ready') });

    const result = await getFile(getFileEvent(), context);

    expect(result.statusCode).toBe(200);
    const file = bodyOf(result) as unknown as { contentUrl: string; contentUrlExpiresAt: string };
    const url = new URL(file.contentUrl);
    expect(url.pathname).toContain(objectKey);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('response-content-disposition')).toContain('attachment; filename="ledger.csv"');
    const signedAt = url.searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z');
    expect(Date.parse(file.contentUrlExpiresAt) - Date.parse(signedAt)).toBe(900_000);
  });

  it('shows a pending upload without a contentUrl', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedRecord('pending_upload') });
    const result = await getFile(getFileEvent(), context);
    expect(bodyOf(result)).toMatchObject({ status: 'pending_upload' });
    expect(bodyOf(result).contentUrl).toBeUndefined();
  });

  it('answers 404 when the workspace has no such file', async () => {
    dynamo.on(GetCommand).resolves({});
    const result = await getFile(getFileEvent(), context);
    expect(result.statusCode).toBe(404);
    expect(dynamo.commandCalls(GetCommand)[0]!.args[0].input.Key).toEqual({ pk: `WS#${workspaceId}#FILE#${fileId}`, sk: 'FILE' });
  });

  it('answers 502 when DynamoDB fails and a generic 500 for a bug, leaking neither', async () => {
    dynamo.on(GetCommand).rejectsOnce(new ProvisionedThroughputExceededException({ message: 'throttled on partition 7', $metadata: {} }));
    const throttled = await getFile(getFileEvent(), context);
    expect(throttled.statusCode).toBe(502);
    expect(throttled.body).not.toContain('partition 7');

    dynamo.on(GetCommand).rejectsOnce(new TypeError("Cannot read properties of undefined (reading 'status') at file-records.ts:12"));
    const bug = await getFile(getFileEvent(), context);
    expect(bug.statusCode).toBe(500);
    expect(bodyOf(bug).error).toMatchObject({ code: 'INTERNAL_ERROR', retryable: true });
    expect(bug.body).not.toContain('file-records');
  });
});

describe('finalize-uploaded-file handler', () => {
  function objectCreated(key: string): S3Event {
    return { Records: [{ eventName: 'ObjectCreated:Post', s3: { bucket: { name: 'unit-files' }, object: { key, size: 1 } } }] } as unknown as S3Event;
  }

  it('checks a snapshot of the upload, and blocks and deletes it when over 50 MB whatever the POST policy said', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedRecord('pending_upload') });
    dynamo.on(UpdateCommand).resolves({});
    s3.on(CopyObjectCommand).resolves({});
    s3.on(HeadObjectCommand).resolves({ ContentLength: maximumFileBytes + 1 });
    s3.on(DeleteObjectCommand).resolves({});

    await finalizeUploadedFile(objectCreated(uploadKey));

    const copy = s3.commandCalls(CopyObjectCommand)[0]!.args[0].input;
    expect(copy.CopySource).toBe(`unit-files/${uploadKey}`);
    expect(copy.Key).toMatch(new RegExp(`^${objectKey}/[0-9a-f-]{36}$`));
    expect(s3.commandCalls(HeadObjectCommand)[0]!.args[0].input.Key).toBe(copy.Key);
    expect(s3.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input.Key)).toEqual([uploadKey, copy.Key]);
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
    const update = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update.ExpressionAttributeValues).toMatchObject({ ':blocked': 'blocked', ':reason': { code: 'PAYLOAD_TOO_LARGE' }, ':pending': 'pending_upload' });
  });

  it('discards a repeated upload to a finalized session and ignores keys that are not upload keys', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedRecord('ready') });
    s3.on(DeleteObjectCommand).resolves({});

    await finalizeUploadedFile(objectCreated(uploadKey));
    await finalizeUploadedFile(objectCreated(objectKey));
    await finalizeUploadedFile(objectCreated('exports/report+2024.csv'));

    expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
    expect(s3.calls().map((call) => call.args[0].constructor.name)).toEqual(['DeleteObjectCommand']);
    expect(s3.commandCalls(DeleteObjectCommand)[0]!.args[0].input.Key).toBe(uploadKey);
  });
});
