import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkFileSize, checkPostPolicy } from '../../../src/local/s3-post-policy.ts';

const secrets = (accessKeyId: string) => (accessKeyId === 'LOCAL' ? 'local-secret' : undefined);
const now = new Date('2026-01-02T10:00:00Z');

/** A form as S3's SDK signs it: the policy in base64, its SigV4 signature, and the given fields. */
function signedForm(conditions: unknown[], fields: Record<string, string>, expiration = '2026-01-02T10:15:00Z') {
  const credential = 'LOCAL/20260102/us-east-1/s3/aws4_request';
  const policy = Buffer.from(JSON.stringify({ expiration, conditions })).toString('base64');
  const signingKey = ['20260102', 'us-east-1', 's3', 'aws4_request'].reduce<Buffer>((key, part) => createHmac('sha256', key).update(part).digest(), Buffer.from('AWS4local-secret'));
  const signature = createHmac('sha256', signingKey).update(policy).digest('hex');
  return {
    bucket: 'files',
    fields: Object.entries({ ...fields, 'X-Amz-Algorithm': 'AWS4-HMAC-SHA256', 'X-Amz-Credential': credential, Policy: policy, 'X-Amz-Signature': signature }),
  };
}

const signingConditions = [{ 'X-Amz-Algorithm': 'AWS4-HMAC-SHA256' }, { 'X-Amz-Credential': 'LOCAL/20260102/us-east-1/s3/aws4_request' }];

describe('checkPostPolicy', () => {
  it('accepts a form that meets every condition, field names compared case-insensitively, and returns the size range', () => {
    const form = signedForm([...signingConditions, { bucket: 'files' }, ['eq', '$key', 'uploads/a'], ['content-length-range', 1, 10]], { KEY: 'uploads/a', 'x-ignore-note': 'free' });

    const verdict = checkPostPolicy(form, secrets, now);

    expect(verdict).toEqual({ fileSizeRange: { min: 1, max: 10 } });
    expect(checkFileSize(11, verdict as { fileSizeRange: { min: number; max: number } })).toMatchObject({ status: 400, code: 'EntityTooLarge' });
    expect(checkFileSize(10, verdict as { fileSizeRange: { min: number; max: number } })).toBeUndefined();
  });

  it('refuses another key, a key outside a starts-with prefix, and another bucket', () => {
    const eqForm = signedForm([...signingConditions, { bucket: 'files' }, { key: 'uploads/a' }], { key: 'uploads/b' });
    const prefixForm = signedForm([...signingConditions, { bucket: 'files' }, ['starts-with', '$key', 'uploads/a/']], { key: 'uploads/b/x' });
    const bucketForm = { ...signedForm([...signingConditions, { bucket: 'files' }, { key: 'k' }], { key: 'k' }), bucket: 'other' };

    for (const form of [eqForm, prefixForm, bucketForm]) {
      expect(checkPostPolicy(form, secrets, now)).toMatchObject({ status: 403, code: 'AccessDenied', message: expect.stringContaining('Policy Condition failed') });
    }
  });

  it('refuses an unknown access key, a malformed condition and a form without a policy', () => {
    const form = signedForm([...signingConditions, ['between', '$key', 'a']], { key: 'k' });

    expect(checkPostPolicy(form, () => undefined, now)).toMatchObject({ status: 403, code: 'InvalidAccessKeyId' });
    expect(checkPostPolicy(form, secrets, now)).toMatchObject({ status: 400, code: 'InvalidPolicyDocument' });
    expect(checkPostPolicy({ bucket: 'files', fields: [['key', 'k']] }, secrets, now)).toMatchObject({ status: 403, code: 'AccessDenied' });
  });

  it('refuses a policy at its expiration instant', () => {
    const form = signedForm([...signingConditions, { key: 'k' }], { key: 'k' }, now.toISOString());

    expect(checkPostPolicy(form, secrets, now)).toMatchObject({ status: 403, message: expect.stringContaining('Policy expired') });
  });
});
