import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import * as z from 'zod/mini';

// A first response kept for replay can hold what no other read returns: a subscription's signing
// secret, an upload session's signed form. It is stored sealed (AES-256-GCM) under a key derived from
// the client's Idempotency-Key, which the table holds only as a SHA-256 digest: the stored item alone
// does not open, only a request that presents the key again does. (A client that picks guessable keys
// weakens this; the README asks for random ones.)

/** The response a replay answers: status, the headers that go with it, and the JSON body. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

const recordedResponseSchema = z.object({ status: z.number().check(z.int()), headers: z.record(z.string(), z.string()), body: z.optional(z.unknown()) });

/** What is stored: every part base64. */
export interface SealedResponse {
  iv: string;
  ciphertext: string;
  authTag: string;
}

/** Where the key is stored and what a seal is bound to: the workspace and the key's digest. */
export interface IdempotencyKeyScope {
  workspaceId: string;
  /** SHA-256 hex of the Idempotency-Key: the stored name of the key. */
  keyDigest: string;
}

export function idempotencyKeyScope(workspaceId: string, key: string): IdempotencyKeyScope {
  return { workspaceId, keyDigest: createHash('sha256').update(key, 'utf8').digest('hex') };
}

export function sealResponse(response: RecordedResponse, key: string, scope: IdempotencyKeyScope): SealedResponse {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKeyOf(key, scope), iv);
  cipher.setAAD(associatedDataOf(scope));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(response), 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), ciphertext: ciphertext.toString('base64'), authTag: cipher.getAuthTag().toString('base64') };
}

/** Throws when the seal does not open with this key (a tampered or misplaced item). */
export function openResponse(sealed: SealedResponse, key: string, scope: IdempotencyKeyScope): RecordedResponse {
  const decipher = createDecipheriv('aes-256-gcm', sealingKeyOf(key, scope), Buffer.from(sealed.iv, 'base64'));
  decipher.setAAD(associatedDataOf(scope));
  decipher.setAuthTag(Buffer.from(sealed.authTag, 'base64'));
  const plaintext = Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]);
  return recordedResponseSchema.parse(JSON.parse(plaintext.toString('utf8')));
}

function sealingKeyOf(key: string, scope: IdempotencyKeyScope): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(key, 'utf8'), Buffer.from(scope.workspaceId, 'utf8'), 'paperflow:idempotent-response', 32));
}

function associatedDataOf(scope: IdempotencyKeyScope): Buffer {
  return Buffer.from(`idempotent-response:${scope.workspaceId}:${scope.keyDigest}`, 'utf8');
}
