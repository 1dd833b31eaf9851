import { describe, expect, it } from 'vitest';
import { cleanFileName, maximumFileNameLength } from '../../../src/files/file-names.ts';

describe('cleanFileName', () => {
  it('replaces path separators so the name stays readable', () => {
    expect(cleanFileName('reports/2024/q1.pdf')).toBe('reports_2024_q1.pdf');
    expect(cleanFileName('C:\\Users\\ana\\scan.png')).toBe('C:_Users_ana_scan.png');
    expect(cleanFileName('../../etc/passwd')).toBe('_.._etc_passwd');
  });

  it('turns line breaks and tabs into spaces and drops other control characters', () => {
    expect(cleanFileName('inv\u0000oice\u0007\r\n2024\t.pdf')).toBe('invoice 2024 .pdf');
    expect(cleanFileName('a\u007f\u0085b.txt')).toBe('a b.txt');
  });

  it('removes bidirectional overrides that would disguise the extension', () => {
    expect(cleanFileName('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
  });

  it('keeps non-Latin names and normalises them to NFC', () => {
    expect(cleanFileName('Rechnung Müller.pdf')).toBe('Rechnung Müller.pdf');
    expect(cleanFileName('請求書.pdf')).toBe('請求書.pdf');
  });

  it('trims leading dots and spaces and trailing dots', () => {
    expect(cleanFileName('  .hidden.csv. ')).toBe('hidden.csv');
  });

  it('returns undefined when nothing readable is left', () => {
    expect(cleanFileName('\u0000\u0001')).toBeUndefined();
    expect(cleanFileName('///')).toBeUndefined();
    expect(cleanFileName('...')).toBeUndefined();
  });

  it('caps the length but keeps the extension', () => {
    const cleaned = cleanFileName(`${'a'.repeat(400)}.pdf`)!;
    expect([...cleaned]).toHaveLength(maximumFileNameLength);
    expect(cleaned.endsWith('.pdf')).toBe(true);
    expect([...cleanFileName('ü'.repeat(300))!]).toHaveLength(maximumFileNameLength);
  });
});
