import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readDocument } from '../../../../src/extraction-engine/read-document.ts';
import { pdfTextWorker, textWorkerSource } from '../../../../src/extraction-engine/readers/pdf-text-worker.ts';

// The text worker skips pdf.js's conversion of composite TrueType font programs. These PDFs carry one
// such font the way Word or LibreOffice embed it (Type0, CIDFontType2, Identity-H, a ToUnicode map and
// /W widths); its program is pdf.js's own Liberation Sans. Which glyph a code draws does not matter to
// the text layer: codes are numbered by first use and the ToUnicode map says which character each is.

const pdfjsBuild = path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'legacy', 'build');
const fontProgram = readFileSync(path.join(pdfjsBuild, '..', '..', 'standard_fonts', 'LiberationSans-Regular.ttf'));

async function compositeTrueTypePdf(text: string, { fontName, vertical = false }: { fontName: string; vertical?: boolean }): Promise<Uint8Array> {
  const characters = [...new Set(text)];
  const codes = [...text].map((character) => (characters.indexOf(character) + 1).toString(16).padStart(4, '0')).join('');
  const toUnicode = [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def /CMapName /Adobe-Identity-UCS def /CMapType 2 def',
    '1 begincodespacerange <0000> <FFFF> endcodespacerange',
    `${characters.length} beginbfchar`,
    ...characters.map((character, index) => `<${(index + 1).toString(16).padStart(4, '0')}> <${character.charCodeAt(0).toString(16).padStart(4, '0')}>`),
    'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');

  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  const { context } = document;
  const descriptor = context.register(
    context.obj({
      Type: 'FontDescriptor',
      FontName: fontName,
      Flags: 32,
      FontBBox: [-203, -303, 1050, 910],
      ItalicAngle: 0,
      Ascent: 905,
      Descent: -212,
      CapHeight: 716,
      StemV: 80,
      FontFile2: context.register(context.flateStream(fontProgram, { Length1: fontProgram.length })),
    }),
  );
  const cidFont = context.register(
    context.obj({
      Type: 'Font',
      Subtype: 'CIDFontType2',
      BaseFont: fontName,
      CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
      FontDescriptor: descriptor,
      W: [1, characters.map(() => 556)],
      CIDToGIDMap: 'Identity',
    }),
  );
  const font = context.register(
    context.obj({
      Type: 'Font',
      Subtype: 'Type0',
      BaseFont: fontName,
      Encoding: vertical ? 'Identity-V' : 'Identity-H',
      DescendantFonts: [cidFont],
      ToUnicode: context.register(context.flateStream(toUnicode)),
    }),
  );
  page.node.setFontDictionary(PDFName.of('F1'), font);
  page.node.set(PDFName.of('Contents'), context.register(context.flateStream(`BT /F1 14 Tf 72 760 Td <${codes}> Tj ET`)));
  return document.save();
}

/** The page's text items and whether the page's font came with a converted program, read through `worker` (pdf.js's own when undefined). */
async function readThrough(bytes: Uint8Array, worker: pdfjs.PDFWorker | undefined): Promise<{ items: unknown[]; fontConverted: boolean }> {
  // fontExtraProperties: pdf.js then keeps a font's converted program after loading it, so the test can see whether there was one.
  const loadingTask = pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, disableFontFace: true, fontExtraProperties: true, verbosity: 0, ...(worker ? { worker } : {}) });
  try {
    const page = await (await loadingTask.promise).getPage(1);
    const { items } = await page.getTextContent();
    const operators = await page.getOperatorList();
    const fontName = operators.argsArray[operators.fnArray.indexOf(pdfjs.OPS.setFont)]?.[0] as string;
    const font = page.commonObjs.get(fontName) as { data?: Uint8Array };
    return { items: items.map((item) => ('str' in item ? [item.str, item.transform, item.width, item.height] : item)), fontConverted: (font.data?.length ?? 0) > 0 };
  } finally {
    await loadingTask.destroy();
  }
}

describe('the PDF text worker', () => {
  it('is built from the installed pdf.js, so a pdf.js upgrade that moves the skipped step fails here rather than slowing reading unnoticed', async () => {
    const stockSource = readFileSync(path.join(pdfjsBuild, 'pdf.worker.mjs'), 'utf8');

    expect(textWorkerSource(stockSource)).toContain('adjustWidths(properties);\n              break;');
    expect(textWorkerSource(stockSource.replace('data = this.checkAndRepair(name, file, properties);', 'data = this.repair(file);'))).toBeUndefined();
    expect(textWorkerSource(stockSource)).toContain('__paperflowInflateSync(bytes)');
    expect(textWorkerSource(stockSource.replace('new DecompressionStream(name)', 'new DecompressionStream(name, options)'))).toBeUndefined();
    expect(await pdfTextWorker()).toBeInstanceOf(pdfjs.PDFWorker);
  });

  it('reads a composite TrueType font without converting its program, and gives the text items pdf.js itself gives', async () => {
    const pdf = await compositeTrueTypePdf('Rechnung 2026-0042 Summe 1.234,56 EUR', { fontName: 'ABCDEF+PaperflowSans' });

    const stock = await readThrough(pdf, undefined);
    const textOnly = await readThrough(pdf, await pdfTextWorker());
    const read = await readDocument(pdf, { mediaType: 'application/pdf', ocrImagesOnTextPages: false });

    expect(stock.fontConverted).toBe(true);
    expect(textOnly.fontConverted).toBe(false);
    expect(textOnly.items).toEqual(stock.items);
    expect(read.pages[0]?.lines.map((line) => line.text)).toEqual(['Rechnung 2026-0042 Summe 1.234,56 EUR']);
  });

  it.each([
    { case: 'named like a standard font', fontName: 'Arial', vertical: false },
    { case: 'written vertically', fontName: 'ABCDEF+PaperflowSans', vertical: true },
  ])('still converts the program of a composite font $case, whose text pdf.js changes when the program is broken', async ({ fontName, vertical }) => {
    const pdf = await compositeTrueTypePdf('Rechnung 42', { fontName, vertical });

    const stock = await readThrough(pdf, undefined);
    const textOnly = await readThrough(pdf, await pdfTextWorker());

    expect(textOnly.fontConverted).toBe(true);
    expect(textOnly.items).toEqual(stock.items);
  });

  describe('flate streams', () => {
    afterEach(() => vi.restoreAllMocks());

    /** A page of 120 item lines whose content stream, compressed, is well over the 1 KB pdf.js hands to a DecompressionStream. */
    async function longContentPdf(compress: (content: Uint8Array) => Uint8Array): Promise<Uint8Array> {
      let seed = 7;
      const nextAmount = () => ((seed = (seed * 48_271) % 2_147_483_647) % 100_000) / 100;
      const lines = Array.from({ length: 120 }, (_, index) => `BT /F1 9 Tf 40 ${800 - index * 6} Td (Item ${index + 1} article ${(seed % 9_973).toString(36)} ${nextAmount().toFixed(2)} EUR) Tj ET`);
      const content = compress(new TextEncoder().encode(lines.join('\n')));
      expect(content.length).toBeGreaterThan(1024);
      const document = await PDFDocument.create();
      const page = document.addPage([595, 842]);
      const { context } = document;
      page.node.setFontDictionary(PDFName.of('F1'), context.register(context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'Helvetica' })));
      page.node.set(PDFName.of('Contents'), context.register(context.stream(content, { Filter: 'FlateDecode' })));
      return document.save({ useObjectStreams: false });
    }

    it.each([
      { case: 'a whole stream', compress: (content: Uint8Array) => new Uint8Array(deflateSync(content)) },
      // zlib rejects it (no checksum, last block cut short); pdf.js's own decoder then reads what is there.
      { case: 'a stream cut short', compress: (content: Uint8Array) => new Uint8Array(deflateSync(content)).subarray(0, -40) },
    ])('inflates $case in the thread and reads the text pdf.js itself reads', async ({ compress }) => {
      const pdf = await longContentPdf(compress);
      const decompressionStreams = vi.spyOn(globalThis, 'DecompressionStream');

      const stock = await readThrough(pdf, undefined);
      const streamsForStock = decompressionStreams.mock.calls.length;
      const textOnly = await readThrough(pdf, await pdfTextWorker());

      expect(streamsForStock).toBeGreaterThan(0);
      expect(decompressionStreams.mock.calls.length).toBe(streamsForStock);
      expect(textOnly.items.length).toBeGreaterThan(20);
      expect(textOnly.items).toEqual(stock.items);
    });
  });

  it('lets go of each document once it is read, so a long-lived process does not deliver every message to every document it read before', async () => {
    const worker = await pdfTextWorker();
    const port = worker?.port as unknown as { listenerCount: number };
    const pdf = await compositeTrueTypePdf('Rechnung 42', { fontName: 'ABCDEF+PaperflowSans' });
    await readDocument(pdf, { mediaType: 'application/pdf', ocrImagesOnTextPages: false });
    const listenersBetweenDocuments = port.listenerCount;

    for (let document = 0; document < 3; document += 1) await readDocument(pdf, { mediaType: 'application/pdf', ocrImagesOnTextPages: false });

    expect(port.listenerCount).toBe(listenersBetweenDocuments);
  });
});
