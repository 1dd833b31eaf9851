import { createHash } from 'node:crypto';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyService, workspaceStore } from '../../src/composition/auth.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { samplePdf } from '../support/sample-files.ts';

// The local S3 endpoint checks upload forms' policies as S3 does (s3rver alone ignores them), so an
// upload session's form writes its own key and nothing else, locally as deployed.
let stack: StackUnderTest;
let otherWorkspaceKey: string;

beforeAll(async () => {
  stack = await startStackUnderTest();
  await workspaceStore().ensure({ id: 'ws_neighbour', name: 'neighbour', createdAt: new Date().toISOString() });
  otherWorkspaceKey = (await apiKeyService().create({ workspaceId: 'ws_neighbour', name: 'neighbour', scopes: ['*'] })).secret;
});

afterAll(async () => {
  await stack?.stop();
});

interface UploadSession {
  fileId: string;
  upload: { url: string; fields: Record<string, string> };
}

async function createSession(apiKey?: string): Promise<UploadSession> {
  const response = await stack.api('/files', {
    method: 'POST',
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fileName: 'scan.pdf', size: 4096, mimeType: 'application/pdf' }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as UploadSession;
}

async function postForm(url: string, fields: Record<string, string>, content: Buffer | string): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([content]), 'upload.bin');
  return fetch(url, { method: 'POST', body: form });
}

async function s3Error(response: Response): Promise<{ status: number; code?: string; message?: string }> {
  const xml = await response.text();
  return { status: response.status, code: /<Code>([^<]*)<\/Code>/.exec(xml)?.[1], message: /<Message>([^<]*)<\/Message>/.exec(xml)?.[1] };
}

async function objectExists(key: string): Promise<boolean> {
  return new S3Client({ forcePathStyle: true })
    .send(new HeadObjectCommand({ Bucket: stack.resources.filesBucketName, Key: key }))
    .then(() => true, () => false);
}

async function fileOf(fileId: string, apiKey?: string): Promise<Record<string, unknown>> {
  return (await (await stack.api(`/files/${fileId}`, { apiKey })).json()) as Record<string, unknown>;
}

async function settledFileOf(fileId: string, apiKey?: string): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const file = await fileOf(fileId, apiKey);
    if (file.status !== 'pending_upload') return file;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`File ${fileId} stayed pending.`);
}

/** A form signed with the stack's own credentials, with policy conditions of the test's choosing. */
function signedForm(options: Omit<Parameters<typeof createPresignedPost>[1], 'Bucket'>) {
  return createPresignedPost(new S3Client({ forcePathStyle: true }), { Bucket: stack.resources.filesBucketName, ...options });
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('upload forms against the local S3 endpoint', () => {
  it("refuses a session's form posted with another workspace's pending upload key, which stays untouched", async () => {
    const attacker = await createSession();
    const victim = await createSession(otherWorkspaceKey);
    const victimKey = victim.upload.fields.key!;

    const attack = await postForm(attacker.upload.url, { ...attacker.upload.fields, key: victimKey }, await samplePdf('Not yours'));

    expect(await s3Error(attack)).toMatchObject({ status: 403, code: 'AccessDenied', message: expect.stringContaining('Policy Condition failed') });
    expect(await objectExists(victimKey)).toBe(false);
    expect(await fileOf(victim.fileId, otherWorkspaceKey)).toMatchObject({ status: 'pending_upload' });

    const victimContent = await samplePdf('The neighbour\'s own');
    expect((await postForm(victim.upload.url, victim.upload.fields, victimContent)).status).toBe(204);
    expect(await settledFileOf(victim.fileId, otherWorkspaceKey)).toMatchObject({ status: 'ready', sha256: sha256(victimContent) });
    const attackerContent = await samplePdf('Mine, honestly');
    expect((await postForm(attacker.upload.url, attacker.upload.fields, attackerContent)).status).toBe(204);
    expect(await settledFileOf(attacker.fileId)).toMatchObject({ status: 'ready', sha256: sha256(attackerContent) });
  });

  it('refuses a policy that was changed after signing', async () => {
    const session = await createSession();
    const policy = JSON.parse(Buffer.from(session.upload.fields.Policy!, 'base64').toString('utf8')) as { conditions: unknown[] };
    policy.conditions = policy.conditions.map((condition) => (JSON.stringify(condition).includes('"key"') ? ['starts-with', '$key', 'workspaces/'] : condition));
    const widened = Buffer.from(JSON.stringify(policy)).toString('base64');

    const response = await postForm(session.upload.url, { ...session.upload.fields, Policy: widened, key: 'workspaces/ws_neighbour/uploads/file_X' }, 'text');

    expect(await s3Error(response)).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(await objectExists('workspaces/ws_neighbour/uploads/file_X')).toBe(false);
  });

  it('refuses an expired policy', async () => {
    const { url, fields } = await signedForm({ Key: 'tests/expired', Expires: 1 });
    await new Promise((resolve) => setTimeout(resolve, 2_100));

    expect(await s3Error(await postForm(url, fields, 'late'))).toMatchObject({ status: 403, code: 'AccessDenied', message: expect.stringContaining('Policy expired') });
    expect(await objectExists('tests/expired')).toBe(false);
  });

  it('checks starts-with, x-amz-* and Content-Type conditions, the bucket, fields the policy does not cover, and the size range', async () => {
    const { url, fields } = await signedForm({
      Key: 'tests/conditions',
      Fields: { 'Content-Type': 'image/png', 'x-amz-meta-owner': 'ws_default' },
      Conditions: [['starts-with', '$Content-Type', 'image/'], ['content-length-range', 2, 100]],
      Expires: 60,
    });
    const otherBucketUrl = url.replace(stack.resources.filesBucketName, 'another-bucket');

    const refusals = [
      await postForm(url, { ...fields, 'Content-Type': 'text/html' }, 'png?'),
      await postForm(url, { ...fields, 'x-amz-meta-owner': 'ws_neighbour' }, 'png?'),
      await postForm(url, { ...fields, 'x-amz-meta-extra': 'not in the policy' }, 'png?'),
      await postForm(otherBucketUrl, fields, 'png?'),
    ];
    const tooLarge = await postForm(url, fields, 'x'.repeat(101));
    const tooSmall = await postForm(url, fields, 'x');

    for (const refusal of refusals) expect(await s3Error(refusal)).toMatchObject({ status: 403, code: 'AccessDenied' });
    expect(await s3Error(tooLarge)).toMatchObject({ status: 400, code: 'EntityTooLarge' });
    expect(await s3Error(tooSmall)).toMatchObject({ status: 400, code: 'EntityTooSmall' });
    expect(await objectExists('tests/conditions')).toBe(false);
    expect((await postForm(url, fields, 'a png, say')).status).toBe(204);
    expect(await objectExists('tests/conditions')).toBe(true);
  });
});
