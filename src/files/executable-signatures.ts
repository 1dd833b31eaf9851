// Own checks for program files, run before file-type: its answers for these are incomplete (no shebang
// scripts, no MSI) and a blocked upload must never depend on a generic detector's ordering.

export interface ExecutableMatch {
  /** What the content is, for the 415 message and the record's blockedReason. */
  description: string;
}

const utf8ByteOrderMark = [0xef, 0xbb, 0xbf];

export function detectExecutable(head: Uint8Array): ExecutableMatch | undefined {
  if (startsWith(head, [0x7f, 0x45, 0x4c, 0x46])) return { description: 'an ELF executable' };
  if (isPortableOrDosExecutable(head)) return { description: 'a Windows (PE/MZ) executable' };
  const machO = machOKind(head);
  if (machO) return { description: machO };
  if (startsWith(withoutByteOrderMark(head), [0x23, 0x21])) return { description: 'a script with a "#!" interpreter line' };
  if (startsWith(head, [0x00, 0x61, 0x73, 0x6d])) return { description: 'a WebAssembly module' };
  if (startsWith(head, [0x4c, 0x00, 0x00, 0x00, 0x01, 0x14, 0x02, 0x00])) return { description: 'a Windows shortcut (.lnk)' };
  if (isWindowsInstaller(head)) return { description: 'a Windows Installer package (MSI)' };
  return undefined;
}

/**
 * "MZ" alone also starts ordinary text ("MZ Logistics invoice…"), so a DOS header must look like one:
 * the PE signature where e_lfanew points, or the NUL bytes every real DOS header has in its first 64.
 */
function isPortableOrDosExecutable(head: Uint8Array): boolean {
  if (!startsWith(head, [0x4d, 0x5a])) return false;
  if (head.length >= 64) {
    const peOffset = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(0x3c, true);
    if (peOffset + 4 <= head.length && startsWith(head.subarray(peOffset), [0x50, 0x45, 0x00, 0x00])) return true;
  }
  return head.subarray(0, 64).includes(0x00);
}

function machOKind(head: Uint8Array): string | undefined {
  const thinMagics = [
    [0xfe, 0xed, 0xfa, 0xce],
    [0xfe, 0xed, 0xfa, 0xcf],
    [0xce, 0xfa, 0xed, 0xfe],
    [0xcf, 0xfa, 0xed, 0xfe],
  ];
  if (thinMagics.some((magic) => startsWith(head, magic))) return 'a Mach-O executable';
  // 0xCAFEBABE starts both universal (fat) Mach-O binaries and Java class files; the next word is an
  // architecture count (small) for the former and a class-file version (≥ 45) for the latter.
  if (startsWith(head, [0xca, 0xfe, 0xba, 0xbe]) || startsWith(head, [0xca, 0xfe, 0xba, 0xbf])) {
    if (head.length < 8) return 'a Mach-O universal binary or Java class file';
    const nextWord = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(4, false);
    return nextWord > 0 && nextWord < 45 ? 'a Mach-O universal (fat) binary' : 'a Java class file';
  }
  return undefined;
}

// Compound File Binary (OLE2) is the container of MSI packages and of legacy .doc/.xls/.ppt; the
// root storage's class id tells an installer (package, patch, transform) apart.
const compoundFileMagic = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const installerClassIds = ['000c1084', '000c1086', '000c1082'];

function isWindowsInstaller(head: Uint8Array): boolean {
  if (!startsWith(head, compoundFileMagic) || head.length < 512) return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const sectorSize = 2 ** view.getUint16(30, true);
  const firstDirectorySector = view.getUint32(48, true);
  const rootEntryOffset = (firstDirectorySector + 1) * sectorSize;
  if (rootEntryOffset + 0x60 > head.length) return false;
  const classIdFirstWord = view.getUint32(rootEntryOffset + 0x50, true).toString(16).padStart(8, '0');
  return installerClassIds.includes(classIdFirstWord);
}

export function isCompoundFile(head: Uint8Array): boolean {
  return startsWith(head, compoundFileMagic);
}

export function withoutByteOrderMark(head: Uint8Array): Uint8Array {
  return startsWith(head, utf8ByteOrderMark) ? head.subarray(3) : head;
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((value, index) => bytes[index] === value);
}
