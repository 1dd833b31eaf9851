// Envelope encryption's key half: a fresh data key per secret, handed out both in plaintext (to
// encrypt with, then forgotten) and encrypted (to store beside the ciphertext). Deployed the keys come
// from KMS; the embedded local stack uses a key file. Only the composition root (src/composition/webhooks.ts) chooses; callers see this port.

export interface DataKey {
  /** 32 bytes for AES-256; the caller zeroes it once used. */
  plaintext: Buffer;
  /** What is stored: only the provider can turn it back into `plaintext`. */
  encrypted: Buffer;
}

/**
 * Names what the key protects (a workspace and a subscription, say). Both halves must give the same
 * context: a stored key copied onto another record does not decrypt there.
 */
export type EncryptionContext = Record<string, string>;

export interface DataKeyProvider {
  /** Which provider encrypted a stored key (`kms`, `local-file`), recorded beside it. */
  readonly name: string;
  generateDataKey(context: EncryptionContext): Promise<DataKey>;
  decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer>;
}

/** The context as one canonical string (sorted keys), for providers that bind it as associated data. */
export function canonicalContext(context: EncryptionContext): string {
  return JSON.stringify(Object.keys(context).sort().map((key) => [key, context[key]]));
}
