import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { canonicalContext, type DataKey, type DataKeyProvider, type EncryptionContext } from './data-keys.ts';

// The embedded local stack has no KMS: a key file in its data folder plays the customer-managed key.
// Data keys are wrapped with it by AES-256-GCM, the context as associated data, exactly as the KMS
// provider's callers expect; the code above the port is the same in both.

/** The variable through which local functions find the key file (set by src/local/local-stack.ts). */
export const localKeyFileEnvironment = 'PAPERFLOW_SIGNING_KEY_FILE';

const keyBytes = 32;
const ivBytes = 12;
const tagBytes = 16;

/** Creates the key file with 32 random bytes unless it exists; never overwrites (that would lose every secret). */
export async function ensureLocalKeyFile(path: string): Promise<void> {
  try {
    await writeFile(path, randomBytes(keyBytes), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export class LocalFileDataKeys implements DataKeyProvider {
  readonly name = 'local-file';
  private masterKey: Promise<Buffer> | undefined;

  constructor(private readonly keyFile: string) {}

  async generateDataKey(context: EncryptionContext): Promise<DataKey> {
    const plaintext = randomBytes(keyBytes);
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', await this.key(), iv);
    cipher.setAAD(Buffer.from(canonicalContext(context), 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { plaintext, encrypted: Buffer.concat([iv, cipher.getAuthTag(), ciphertext]) };
  }

  async decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer> {
    if (encrypted.length !== ivBytes + tagBytes + keyBytes) throw new Error('Not a data key of the local key file.');
    const decipher = createDecipheriv('aes-256-gcm', await this.key(), encrypted.subarray(0, ivBytes));
    decipher.setAAD(Buffer.from(canonicalContext(context), 'utf8'));
    decipher.setAuthTag(encrypted.subarray(ivBytes, ivBytes + tagBytes));
    return Buffer.concat([decipher.update(encrypted.subarray(ivBytes + tagBytes)), decipher.final()]);
  }

  private key(): Promise<Buffer> {
    this.masterKey ??= readFile(this.keyFile).then((key) => {
      if (key.length !== keyBytes) throw new Error(`The local key file ${this.keyFile} does not hold ${keyBytes} bytes.`);
      return key;
    });
    // A failed read (the stack not started yet) is not remembered: the next call reads again.
    this.masterKey.catch(() => {
      this.masterKey = undefined;
    });
    return this.masterKey;
  }
}
