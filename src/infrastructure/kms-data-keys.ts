import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { DataKey, DataKeyProvider, EncryptionContext } from './data-keys.ts';

/**
 * Data keys from a customer-managed KMS key: one `GenerateDataKey` per secret stored, one `Decrypt`
 * per secret read. The key never leaves KMS, rotation is KMS's, and the encryption context binds each
 * data key to its record (and shows in CloudTrail).
 */
export class KmsDataKeys implements DataKeyProvider {
  readonly name = 'kms';

  constructor(
    private readonly client: KMSClient,
    private readonly keyId: string,
  ) {}

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const { Plaintext, CiphertextBlob } = await this.client.send(
      new GenerateDataKeyCommand({ KeyId: this.keyId, KeySpec: 'AES_256', EncryptionContext: context }),
    );
    if (!Plaintext || !CiphertextBlob) throw new Error('KMS GenerateDataKey returned no key.');
    return { plaintext: Buffer.from(Plaintext), encrypted: Buffer.from(CiphertextBlob) };
  }

  async decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer> {
    // Naming the key makes KMS refuse a ciphertext made under any other key.
    const { Plaintext } = await this.client.send(new DecryptCommand({ KeyId: this.keyId, CiphertextBlob: encrypted, EncryptionContext: context }));
    if (!Plaintext) throw new Error('KMS Decrypt returned no key.');
    return Buffer.from(Plaintext);
  }
}
