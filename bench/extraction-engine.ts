import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { derivedScanOf } from '../scripts/corpus-scans.ts';
import { OcrPool, readDocument } from '../src/extraction-engine/diagnostics.ts';
import { defaultExtractionConfiguration, extractDocument } from '../src/extraction-engine/index.ts';
import { describeMachine, percentile } from './support/machine.ts';

// Text-PDF pages per second through the whole engine (read, route, extract) against raw pdf.js text
// extraction of the same pages in the same run, then OCR seconds per A4 page and the peak RSS.
const corpus = resolve(process.env.PAPERFLOW_CORPUS_DIR ?? '../shared/corpus');
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const textPdfs: Uint8Array[] = [];
for (const folder of ['invoice2data', 'zugferd']) {
  for (const name of (await readdir(join(corpus, folder))).filter((file) => file.endsWith('.pdf')).sort()) {
    textPdfs.push(new Uint8Array(await readFile(join(corpus, folder, name))));
  }
}

let peakRss = process.memoryUsage().rss;
const baselineRss = peakRss;
const rssSampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

async function rawPdfjsPages(bytes: Uint8Array): Promise<number> {
  const loading = pdfjs.getDocument({ data: new Uint8Array(bytes), verbosity: 0, useSystemFonts: false, disableFontFace: true });
  const document = await loading.promise;
  for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber += 1) await (await document.getPage(pageNumber)).getTextContent();
  const pages = document.numPages;
  await loading.destroy();
  return pages;
}

/** Milliseconds spent in each stage of the engine during the measured rounds (see stageShares). */
const stageMs = { read: 0, extract: 0, pages: 0 };

async function enginePages(bytes: Uint8Array): Promise<number> {
  // The text-layer path: images on text pages are not OCRed here (that is the OCR figure below).
  const readStartedAt = performance.now();
  const document = await readDocument(bytes, { mediaType: 'application/pdf', ocrImagesOnTextPages: false });
  const extractStartedAt = performance.now();
  extractDocument(document, { configuration: defaultExtractionConfiguration });
  stageMs.read += extractStartedAt - readStartedAt;
  stageMs.extract += performance.now() - extractStartedAt;
  stageMs.pages += document.pageCount;
  return document.pageCount;
}

async function pagesPerSecond(read: (bytes: Uint8Array) => Promise<number>): Promise<number> {
  const rates: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const startedAt = performance.now();
    let pages = 0;
    for (const bytes of textPdfs) pages += await read(bytes);
    rates.push(pages / ((performance.now() - startedAt) / 1000));
  }
  return percentile(rates.sort((a, b) => a - b), 0.5);
}

await pagesPerSecond(rawPdfjsPages); // warm-up: JIT, font and cmap data
await pagesPerSecond(enginePages);
const rawRate = await pagesPerSecond(rawPdfjsPages);
stageMs.read = 0;
stageMs.extract = 0;
stageMs.pages = 0;
const engineRate = await pagesPerSecond(enginePages);
// Per page, so a regression shows which stage it is in: reading (pdf.js, lines, attachments) or
// extraction (routing, label matching, candidates, selection).
const measuredPages = stageMs.pages;

// OCR: an image-only A4 "scan" rendered from a corpus text PDF, read by a warm single-worker pool.
const a4Source = textPdfs.find((bytes) => Buffer.from(bytes).includes('/MediaBox [0 0 595')) ?? textPdfs[0]!;
const scan = await derivedScanOf(a4Source);
const ocr = new OcrPool({ size: 1 });
const ocrSeconds: number[] = [];
try {
  await readDocument(scan, { mediaType: 'application/pdf', ocr }); // warm-up: worker start, models
  for (let round = 0; round < rounds; round += 1) {
    const startedAt = performance.now();
    const document = await readDocument(scan, { mediaType: 'application/pdf', ocr });
    ocrSeconds.push((performance.now() - startedAt) / 1000 / document.pageCount);
  }
} finally {
  await ocr.terminate();
  clearInterval(rssSampler);
}

console.log(`extraction engine (${describeMachine()}; ${textPdfs.length} corpus text PDFs, median of ${rounds} rounds)`);
console.log(`  raw pdf.js text extraction:   ${rawRate.toFixed(1)} pages/s`);
console.log(`  whole engine (read+extract):  ${engineRate.toFixed(1)} pages/s`);
console.log(`  ratio:                        ${((engineRate / rawRate) * 100).toFixed(1)}% of raw pdf.js (target ≥ 80%)`);
console.log(`  per page, raw pdf.js:         ${(1000 / rawRate).toFixed(1)} ms`);
console.log(`  per page, engine read:        ${(stageMs.read / measuredPages).toFixed(1)} ms (readDocument: pdf.js text, lines, attachments, e-invoice XML)`);
console.log(`  per page, engine extract:     ${(stageMs.extract / measuredPages).toFixed(1)} ms (extractDocument: routing, labels, candidates, selection)`);
console.log(`  OCR, scanned A4 page:         ${percentile(ocrSeconds.sort((a, b) => a - b), 0.5).toFixed(2)} s/page (1 worker, 5 languages)`);
console.log(`  peak RSS:                     ${(peakRss / 2 ** 20).toFixed(0)} MB (${((peakRss - baselineRss) / 2 ** 20).toFixed(0)} MB over the start)`);
