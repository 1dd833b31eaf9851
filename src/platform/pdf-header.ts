// Where a PDF starts, shared by upload sniffing (src/files) and the engine's PDF repair: both accept
// what PDF readers accept, a header anywhere in the first kilobyte.

const maxHeaderOffset = 1024;
const latin1 = new TextDecoder('latin1');

/** Offset of `%PDF-` within the first kilobyte, where PDF readers look for it; -1 when absent. */
export function pdfHeaderOffset(bytes: Uint8Array): number {
  return latin1.decode(bytes.subarray(0, maxHeaderOffset + 8)).search(/%PDF-\d/);
}
