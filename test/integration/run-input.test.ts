import { Readable } from 'node:stream';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunInput, type FileNode } from '../../src/workflows/run-input.ts';
import { formUploads } from '../../src/composition/files.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { recordsTable } from '../support/records-table.ts';
import { elfExecutable, sampleCsv, samplePdf } from '../support/sample-files.ts';

// The multipart run input stored through the files module into the embedded stack's table and S3
// emulator: the file nodes are real files, readable by GET /files/{fileId}, and a refused form leaves
// neither an object nor a record.

let stack: StackUnderTest;

beforeAll(async () => {
  stack = await startStackUnderTest();
});

afterAll(async () => {
  await stack?.stop();
});

function requestOf(form: FormData) {
  const request = new Request('http://paperflow.test/runs', { method: 'POST', body: form });
  return { contentType: request.headers.get('content-type') ?? undefined, stream: Readable.fromWeb(request.body! as never) };
}

async function storedKeys(): Promise<string[]> {
  const listing = await new S3Client({ forcePathStyle: true }).send(new ListObjectsV2Command({ Bucket: stack.resources.filesBucketName, Prefix: 'workspaces/ws_default/' }));
  return (listing.Contents ?? []).map((object) => object.Key!).sort();
}

async function fileRecordKeys(): Promise<string[]> {
  const { client, tableName } = recordsTable();
  const { Items = [] } = await client.send(new ScanCommand({ TableName: tableName, FilterExpression: 'sk = :file', ExpressionAttributeValues: { ':file': 'FILE' } }));
  return Items.map((item) => item.pk as string).sort();
}

describe('readRunInput with multipart/form-data on the embedded stack', () => {
  it('stores file parts as files readable through the API, with text and JSON parts alongside', async () => {
    const pdf = await samplePdf('Invoice 2024-0099');
    const form = new FormData();
    form.append('customer', 'ACME Ltd');
    form.append('options', new Blob([JSON.stringify({ priority: 'high' })], { type: 'application/json' }));
    form.append('documents', new Blob([pdf]), 'march.pdf');
    form.append('documents', new Blob([sampleCsv]), 'ledger.csv');

    const body = (await readRunInput('ws_default', requestOf(form), { formUploads: formUploads() })) as { customer: string; options: unknown; documents: FileNode[] };

    expect(body.customer).toBe('ACME Ltd');
    expect(body.options).toEqual({ priority: 'high' });
    expect(body.documents.map(({ fileName, mimeType, size }) => ({ fileName, mimeType, size }))).toEqual([
      { fileName: 'march.pdf', mimeType: 'application/pdf', size: pdf.length },
      { fileName: 'ledger.csv', mimeType: 'text/csv', size: sampleCsv.length },
    ]);
    const read = await stack.api(`/files/${body.documents[0]!.fileId}`);
    expect(read.status).toBe(200);
    const view = (await read.json()) as { fileId: string; status: string; contentUrl: string };
    expect(view).toMatchObject({ fileId: body.documents[0]!.fileId, status: 'ready' });
    const download = await fetch(view.contentUrl);
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it('leaves no object and no file record behind when a form is refused', async () => {
    const keysBefore = await storedKeys();
    const recordsBefore = await fileRecordKeys();
    const withExecutable = new FormData();
    withExecutable.append('good', new Blob([await samplePdf()]), 'a.pdf');
    withExecutable.append('bad', new Blob([elfExecutable()]), 'b.pdf');
    const withBrokenJson = new FormData();
    withBrokenJson.append('good', new Blob([sampleCsv]), 'a.csv');
    withBrokenJson.append('options', new Blob(['{oops'], { type: 'application/json' }));

    await expect(readRunInput('ws_default', requestOf(withExecutable), { formUploads: formUploads() })).rejects.toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    await expect(readRunInput('ws_default', requestOf(withBrokenJson), { formUploads: formUploads() })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });

    expect(await storedKeys()).toEqual(keysBefore);
    expect(await fileRecordKeys()).toEqual(recordsBefore);
  });

  it('stores the files in the caller\'s workspace only', async () => {
    const form = new FormData();
    form.append('doc', new Blob([sampleCsv]), 'ledger.csv');

    const body = (await readRunInput('ws_elsewhere', requestOf(form), { formUploads: formUploads() })) as { doc: FileNode[] };

    expect((await stack.api(`/files/${body.doc[0]!.fileId}`)).status).toBe(404);
    const { client, tableName } = recordsTable();
    const { Items = [] } = await client.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `WS#ws_elsewhere#FILE#${body.doc[0]!.fileId}` } }));
    expect(Items).toHaveLength(1);
  });
});
