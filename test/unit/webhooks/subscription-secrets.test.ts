import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalContext } from '../../../src/infrastructure/data-keys.ts';
import { KmsDataKeys } from '../../../src/infrastructure/kms-data-keys.ts';
import { ensureLocalKeyFile, LocalFileDataKeys } from '../../../src/infrastructure/local-file-data-keys.ts';
import { newSigningSecret, SigningSecretCipher } from '../../../src/webhooks/subscription-secrets.ts';

const owner = { workspaceId: 'ws_secrets', subscriptionId: 'sub_01JZ0000000000000000000000' };

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'paperflow-keys-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('newSigningSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes, new each time', () => {
    const secrets = [newSigningSecret(), newSigningSecret()];

    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
    expect(secrets[0]).not.toBe(secrets[1]);
  });
});

describe('SigningSecretCipher over the local key file', () => {
  it('creates the key file once with 32 bytes, readable by its owner only, and never replaces it', async () => {
    const keyFile = join(folder, 'once.key');

    await ensureLocalKeyFile(keyFile);
    const first = await readFile(keyFile);
    await ensureLocalKeyFile(keyFile);

    expect(first).toHaveLength(32);
    expect(await readFile(keyFile)).toEqual(first);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
  });

  it('round-trips a secret, and stores nothing of it in clear', async () => {
    const keyFile = join(folder, 'round-trip.key');
    await ensureLocalKeyFile(keyFile);
    const cipher = new SigningSecretCipher(new LocalFileDataKeys(keyFile));
    const secret = newSigningSecret();

    const encrypted = await cipher.encrypt(secret, owner);

    expect(encrypted.keyProvider).toBe('local-file');
    expect(JSON.stringify(encrypted)).not.toContain(secret.slice('whsec_'.length, 20));
    expect(await cipher.decrypt(encrypted, owner)).toBe(secret);
    // A fresh cipher (another process) reads it from the same key file.
    expect(await new SigningSecretCipher(new LocalFileDataKeys(keyFile)).decrypt(encrypted, owner)).toBe(secret);
  });

  it('refuses the ciphertext under another subscription, another workspace or another key file', async () => {
    const keyFile = join(folder, 'bound.key');
    const otherKeyFile = join(folder, 'other.key');
    await ensureLocalKeyFile(keyFile);
    await ensureLocalKeyFile(otherKeyFile);
    const cipher = new SigningSecretCipher(new LocalFileDataKeys(keyFile));
    const encrypted = await cipher.encrypt(newSigningSecret(), owner);

    await expect(cipher.decrypt(encrypted, { ...owner, subscriptionId: 'sub_01JZ0000000000000000000001' })).rejects.toThrow();
    await expect(cipher.decrypt(encrypted, { ...owner, workspaceId: 'ws_other' })).rejects.toThrow();
    await expect(new SigningSecretCipher(new LocalFileDataKeys(otherKeyFile)).decrypt(encrypted, owner)).rejects.toThrow();
  });

  it('refuses a tampered ciphertext', async () => {
    const keyFile = join(folder, 'tamper.key');
    await ensureLocalKeyFile(keyFile);
    const cipher = new SigningSecretCipher(new LocalFileDataKeys(keyFile));
    const encrypted = await cipher.encrypt(newSigningSecret(), owner);
    const bytes = Buffer.from(encrypted.ciphertext, 'base64');
    bytes[0]! ^= 1;

    await expect(cipher.decrypt({ ...encrypted, ciphertext: bytes.toString('base64') }, owner)).rejects.toThrow();
  });

  it('fails on a key file that is not 32 bytes, and reads it again once fixed', async () => {
    const keyFile = join(folder, 'short.key');
    await writeFile(keyFile, randomBytes(16));
    const keys = new LocalFileDataKeys(keyFile);

    await expect(keys.generateDataKey({})).rejects.toThrow(/32 bytes/);
    await writeFile(keyFile, randomBytes(32));
    await expect(keys.generateDataKey({})).resolves.toHaveProperty('plaintext');
  });
});

describe('SigningSecretCipher over KMS', () => {
  const kms = mockClient(KMSClient);
  const keyId = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
  // Stands in for the KMS key: data keys are wrapped with it, and the context must match, as KMS does.
  const kmsKey = randomBytes(32);

  beforeEach(() => {
    kms.reset();
    kms.on(GenerateDataKeyCommand).callsFake((input: { KeyId: string; KeySpec: string; EncryptionContext: Record<string, string> }) => {
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const wrap = createCipheriv('aes-256-gcm', kmsKey, iv).setAAD(Buffer.from(canonicalContext(input.EncryptionContext)));
      const wrapped = Buffer.concat([wrap.update(plaintext), wrap.final()]);
      return { KeyId: input.KeyId, Plaintext: new Uint8Array(plaintext), CiphertextBlob: new Uint8Array(Buffer.concat([iv, wrap.getAuthTag(), wrapped])) };
    });
    kms.on(DecryptCommand).callsFake((input: { CiphertextBlob: Uint8Array; EncryptionContext: Record<string, string> }) => {
      const blob = Buffer.from(input.CiphertextBlob);
      const unwrap = createDecipheriv('aes-256-gcm', kmsKey, blob.subarray(0, 12)).setAAD(Buffer.from(canonicalContext(input.EncryptionContext)));
      unwrap.setAuthTag(blob.subarray(12, 28));
      return { Plaintext: new Uint8Array(Buffer.concat([unwrap.update(blob.subarray(28)), unwrap.final()])) };
    });
  });

  it('asks KMS once for an AES-256 data key bound to the owner, and once to decrypt it', async () => {
    const cipher = new SigningSecretCipher(new KmsDataKeys(new KMSClient({ region: 'eu-west-1' }), keyId));
    const secret = newSigningSecret();

    const encrypted = await cipher.encrypt(secret, owner);
    const decrypted = await cipher.decrypt(encrypted, owner);

    expect(decrypted).toBe(secret);
    expect(encrypted.keyProvider).toBe('kms');
    const context = { purpose: 'webhook-signing-secret', ...owner };
    expect(kms.commandCalls(GenerateDataKeyCommand).map((call) => call.args[0].input)).toEqual([{ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context }]);
    expect(kms.commandCalls(DecryptCommand).map((call) => call.args[0].input)).toEqual([
      { KeyId: keyId, CiphertextBlob: Buffer.from(encrypted.encryptedDataKey, 'base64'), EncryptionContext: context },
    ]);
  });

  it('passes a KMS failure on', async () => {
    kms.on(GenerateDataKeyCommand).rejects(new Error('AccessDeniedException'));
    const cipher = new SigningSecretCipher(new KmsDataKeys(new KMSClient({ region: 'eu-west-1' }), keyId));

    await expect(cipher.encrypt(newSigningSecret(), owner)).rejects.toThrow('AccessDeniedException');
  });

  it('refuses a secret a local key file encrypted, naming both providers', async () => {
    const keyFile = join(folder, 'mixed.key');
    await ensureLocalKeyFile(keyFile);
    const encrypted = await new SigningSecretCipher(new LocalFileDataKeys(keyFile)).encrypt(newSigningSecret(), owner);

    await expect(new SigningSecretCipher(new KmsDataKeys(new KMSClient({ region: 'eu-west-1' }), keyId)).decrypt(encrypted, owner)).rejects.toThrow(/local-file, not kms/);
  });
});
