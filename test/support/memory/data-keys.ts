import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { canonicalContext, type DataKey, type DataKeyProvider, type EncryptionContext } from '../../../src/infrastructure/data-keys.ts';

/**
 * Data keys wrapped by a master key that lives only in this object (AES-256-GCM, the context as
 * associated data), for unit tests of code that encrypts with `DataKeyProvider` (KMS deployed, the key
 * file locally): a key only this instance unwraps, and only under the context it was made for.
 */
export class InMemoryDataKeys implements DataKeyProvider {
  readonly name = 'in-memory';
  private readonly masterKey = randomBytes(32);

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const plaintext = randomBytes(32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv);
    cipher.setAAD(Buffer.from(canonicalContext(context)));
    const wrapped = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { plaintext, encrypted: Buffer.concat([iv, cipher.getAuthTag(), wrapped]) };
  }

  async decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer> {
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey, encrypted.subarray(0, 12));
    decipher.setAAD(Buffer.from(canonicalContext(context)));
    decipher.setAuthTag(encrypted.subarray(12, 28));
    return Buffer.concat([decipher.update(encrypted.subarray(28)), decipher.final()]);
  }
}
