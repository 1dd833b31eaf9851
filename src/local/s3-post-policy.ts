import { createHmac, timingSafeEqual } from 'node:crypto';

// What S3 checks on a browser-based upload (POST Object with a signed policy), for the local S3
// emulator, which checks none of it: the SigV4 signature of the policy, its expiration, and every
// condition against the form fields sent before the file. Pure: form fields in, a verdict out.
// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html

/** An S3 error answer: the XML `Code` and `Message`, with its HTTP status. */
export interface S3Refusal {
  status: number;
  code: string;
  message: string;
}

export interface PostPolicyForm {
  /** The bucket of the request's URL. */
  bucket: string;
  /** Form fields sent before the file, names as sent; S3 compares names case-insensitively. */
  fields: [name: string, value: string][];
}

export interface AcceptedPostPolicy {
  /** From the policy's `content-length-range`, checked once the file's size is known. */
  fileSizeRange?: { min: number; max: number };
}

/** Fields the policy need not cover (AWS: "x-ignore-" prefixed fields, the signature itself, the file). */
const uncoveredFields = new Set(['policy', 'x-amz-signature', 'file', 'awsaccesskeyid', 'signature']);

export function checkPostPolicy(form: PostPolicyForm, secretAccessKeyOf: (accessKeyId: string) => string | undefined, now = new Date()): S3Refusal | AcceptedPostPolicy {
  const fields = new Map<string, string>();
  for (const [name, value] of form.fields) if (!fields.has(name.toLowerCase())) fields.set(name.toLowerCase(), value);
  const policyText = fields.get('policy');
  if (policyText === undefined) return accessDenied('Access Denied');

  const signatureRefusal = checkSignature(policyText, fields, secretAccessKeyOf);
  if (signatureRefusal) return signatureRefusal;

  const policy = parsePolicy(policyText);
  if (!policy) return { status: 400, code: 'InvalidPolicyDocument', message: 'Invalid Policy: Invalid JSON.' };
  const expiration = Date.parse(policy.expiration);
  if (Number.isNaN(expiration)) return { status: 400, code: 'InvalidPolicyDocument', message: 'Invalid Policy: Invalid \'expiration\' value.' };
  if (expiration <= now.getTime()) return accessDenied('Invalid according to Policy: Policy expired.');

  const valueOf = (name: string) => (name === 'bucket' ? form.bucket : fields.get(name));
  const covered = new Set<string>();
  let fileSizeRange: AcceptedPostPolicy['fileSizeRange'];
  for (const condition of policy.conditions) {
    const parsed = parseCondition(condition);
    if (!parsed) return { status: 400, code: 'InvalidPolicyDocument', message: `Invalid Policy: Invalid Condition: ${JSON.stringify(condition)}` };
    if (parsed.kind === 'content-length-range') {
      fileSizeRange = { min: parsed.min, max: parsed.max };
      continue;
    }
    covered.add(parsed.field);
    const actual = valueOf(parsed.field) ?? '';
    const holds = parsed.kind === 'eq' ? actual === parsed.value : actual.startsWith(parsed.value);
    if (!holds) return accessDenied(`Invalid according to Policy: Policy Condition failed: ${JSON.stringify(condition)}`);
  }

  const extraFields = [...fields.keys()].filter((name) => !uncoveredFields.has(name) && !name.startsWith('x-ignore-') && !covered.has(name));
  if (extraFields.length > 0) return accessDenied(`Invalid according to Policy: Extra input fields: ${extraFields.join(', ')}`);
  return fileSizeRange ? { fileSizeRange } : {};
}

/** The file against the policy's `content-length-range`, with S3's answers. */
export function checkFileSize(size: number, accepted: AcceptedPostPolicy): S3Refusal | undefined {
  const range = accepted.fileSizeRange;
  if (range && size > range.max) return { status: 400, code: 'EntityTooLarge', message: 'Your proposed upload exceeds the maximum allowed size' };
  if (range && size < range.min) return { status: 400, code: 'EntityTooSmall', message: 'Your proposed upload is smaller than the minimum allowed size' };
  return undefined;
}

export function isRefusal(verdict: S3Refusal | AcceptedPostPolicy | undefined): verdict is S3Refusal {
  return verdict !== undefined && 'code' in verdict;
}

function checkSignature(policyText: string, fields: Map<string, string>, secretAccessKeyOf: (accessKeyId: string) => string | undefined): S3Refusal | undefined {
  if (fields.get('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') {
    return accessDenied('Only AWS4-HMAC-SHA256 signed policies are accepted by the local S3 emulator.');
  }
  // <access key>/<yyyymmdd>/<region>/s3/aws4_request
  const [accessKeyId, date, region, service, terminator, ...rest] = (fields.get('x-amz-credential') ?? '').split('/');
  if (!accessKeyId || !date || !region || service !== 's3' || terminator !== 'aws4_request' || rest.length > 0) {
    return { status: 400, code: 'AuthorizationQueryParametersError', message: 'Error parsing the X-Amz-Credential parameter.' };
  }
  const secretAccessKey = secretAccessKeyOf(accessKeyId);
  if (secretAccessKey === undefined) return { status: 403, code: 'InvalidAccessKeyId', message: 'The AWS Access Key Id you provided does not exist in our records.' };

  const signingKey = [date, region, service, terminator].reduce<Buffer>((key, part) => hmac(key, part), Buffer.from(`AWS4${secretAccessKey}`));
  const expected = Buffer.from(hmac(signingKey, policyText).toString('hex'));
  const provided = Buffer.from(fields.get('x-amz-signature') ?? '');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) {
    return {
      status: 403,
      code: 'SignatureDoesNotMatch',
      message: 'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    };
  }
  return undefined;
}

function hmac(key: Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function parsePolicy(policyText: string): { expiration: string; conditions: unknown[] } | undefined {
  try {
    const policy = JSON.parse(Buffer.from(policyText, 'base64').toString('utf8')) as { expiration?: unknown; conditions?: unknown };
    if (typeof policy?.expiration !== 'string' || !Array.isArray(policy.conditions)) return undefined;
    return { expiration: policy.expiration, conditions: policy.conditions };
  } catch {
    return undefined;
  }
}

type Condition = { kind: 'eq' | 'starts-with'; field: string; value: string } | { kind: 'content-length-range'; min: number; max: number };

/** `{"field": "value"}`, `["eq" | "starts-with", "$field", "value"]` or `["content-length-range", min, max]`. */
function parseCondition(condition: unknown): Condition | undefined {
  if (Array.isArray(condition)) {
    const [operator, subject, value] = condition as unknown[];
    if (condition.length !== 3 || typeof operator !== 'string') return undefined;
    if (operator.toLowerCase() === 'content-length-range') {
      return Number.isInteger(subject) && Number.isInteger(value) ? { kind: 'content-length-range', min: subject as number, max: value as number } : undefined;
    }
    const kind = operator.toLowerCase();
    if ((kind !== 'eq' && kind !== 'starts-with') || typeof subject !== 'string' || !subject.startsWith('$') || typeof value !== 'string') return undefined;
    return { kind, field: subject.slice(1).toLowerCase(), value };
  }
  if (condition && typeof condition === 'object') {
    const entries = Object.entries(condition);
    if (entries.length !== 1 || typeof entries[0]![1] !== 'string') return undefined;
    return { kind: 'eq', field: entries[0]![0].toLowerCase(), value: entries[0]![1] as string };
  }
  return undefined;
}

function accessDenied(message: string): S3Refusal {
  return { status: 403, code: 'AccessDenied', message };
}
