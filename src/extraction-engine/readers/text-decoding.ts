// Text inputs (plain text, CSV, HTML, XML) arrive as bytes without a declared charset. UTF-8 is by far
// the most common; Windows-1252 is what legacy exports from European accounting software use.

const utf8Bom = [0xef, 0xbb, 0xbf];

/** Decodes text bytes: BOM first, then strict UTF-8, then Windows-1252 (which never fails). */
export function decodeText(bytes: Uint8Array): string {
  if (startsWith(bytes, utf8Bom)) return new TextDecoder('utf-8').decode(bytes.subarray(3));
  if (startsWith(bytes, [0xff, 0xfe])) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (startsWith(bytes, [0xfe, 0xff])) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

/**
 * True when the bytes look like text in some encoding: no NUL bytes (outside UTF-16) and few control
 * characters. Binary formats nearly always contain NULs or control bytes within their first kilobytes.
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff])) return true;
  const sample = bytes.subarray(0, 64 * 1024);
  let controlBytes = 0;
  for (const byte of sample) {
    if (byte === 0) return false;
    const isAllowedWhitespace = byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d;
    if (byte < 0x20 && !isAllowedWhitespace) controlBytes += 1;
  }
  return controlBytes <= sample.length * 0.01;
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, index) => bytes[index] === byte);
}
