// DOCX and XLSX are ZIP containers. Their parsers inflate entries in memory, so a zip bomb (a few KB
// declaring gigabytes) is refused up front by summing the sizes the central directory declares.

const endOfCentralDirectorySignature = 0x06054b50;
const centralDirectoryHeaderSignature = 0x02014b50;
const zip64Marker = 0xffffffff;

/**
 * Total uncompressed bytes the ZIP's central directory declares, or undefined when the directory is
 * missing or unreadable. ZIP64 sizes count as infinite: office documents never need them.
 */
export function declaredUnzippedBytes(bytes: Uint8Array): number | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const searchStart = Math.max(0, bytes.length - 22 - 0xffff);
  for (let offset = bytes.length - 22; offset >= searchStart; offset -= 1) {
    if (view.getUint32(offset, true) !== endOfCentralDirectorySignature) continue;
    const entryCount = view.getUint16(offset + 10, true);
    let position = view.getUint32(offset + 16, true);
    let total = 0;
    for (let entry = 0; entry < entryCount; entry += 1) {
      if (position + 46 > bytes.length || view.getUint32(position, true) !== centralDirectoryHeaderSignature) return undefined;
      const uncompressedSize = view.getUint32(position + 24, true);
      if (uncompressedSize === zip64Marker) return Number.POSITIVE_INFINITY;
      total += uncompressedSize;
      position += 46 + view.getUint16(position + 28, true) + view.getUint16(position + 30, true) + view.getUint16(position + 32, true);
    }
    return total;
  }
  return undefined;
}
