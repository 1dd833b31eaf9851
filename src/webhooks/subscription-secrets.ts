import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DataKeyProvider, EncryptionContext } from '../infrastructure/data-keys.ts';
import { signingSecretPrefix } from './webhook-signature.ts';

// Signing secrets are stored only encrypted (docs/webhooks.md): AES-256-GCM under a fresh data key per
// secret (envelope encryption), the data key itself encrypted by the provider (KMS deployed, a key
// file locally). The workspace and subscription are bound in twice, as the provider's encryption
// context and as the cipher's associated data, so a ciphertext copied onto another record is useless.

/** `whsec_` + base64 of 32 random bytes (DESIGN.md). */
export function newSigningSecret(): string {
  return `${signingSecretPrefix}${randomBytes(32).toString('base64')}`;
}

/** What is stored as `secretCiphertext`; every part base64. */
export interface EncryptedSigningSecret {
  /** Which provider wrapped the data key (`kms`, `local-file`). */
  keyProvider: string;
  encryptedDataKey: string;
  iv: string;
  ciphertext: string;
  authTag: string;
}

export interface SecretOwner {
  workspaceId: string;
  subscriptionId: string;
}

export class SigningSecretCipher {
  constructor(private readonly keys: DataKeyProvider) {}

  async encrypt(secret: string, owner: SecretOwner): Promise<EncryptedSigningSecret> {
    const dataKey = await this.keys.generateDataKey(contextOf(owner));
    try {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, iv);
      cipher.setAAD(associatedDataOf(owner));
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return {
        keyProvider: this.keys.name,
        encryptedDataKey: dataKey.encrypted.toString('base64'),
        iv: iv.toString('base64'),
        ciphertext: ciphertext.toString('base64'),
        authTag: cipher.getAuthTag().toString('base64'),
      };
    } finally {
      dataKey.plaintext.fill(0);
    }
  }

  async decrypt(encrypted: EncryptedSigningSecret, owner: SecretOwner): Promise<string> {
    if (encrypted.keyProvider !== this.keys.name) {
      throw new Error(`The signing secret of ${owner.subscriptionId} was encrypted by ${encrypted.keyProvider}, not ${this.keys.name}.`);
    }
    const dataKey = await this.keys.decryptDataKey(Buffer.from(encrypted.encryptedDataKey, 'base64'), contextOf(owner));
    try {
      const decipher = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(encrypted.iv, 'base64'));
      decipher.setAAD(associatedDataOf(owner));
      decipher.setAuthTag(Buffer.from(encrypted.authTag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(encrypted.ciphertext, 'base64')), decipher.final()]).toString('utf8');
    } finally {
      dataKey.fill(0);
    }
  }
}

function contextOf(owner: SecretOwner): EncryptionContext {
  return { purpose: 'webhook-signing-secret', workspaceId: owner.workspaceId, subscriptionId: owner.subscriptionId };
}

function associatedDataOf(owner: SecretOwner): Buffer {
  return Buffer.from(`webhook-signing-secret:${owner.workspaceId}:${owner.subscriptionId}`, 'utf8');
}
