import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { derivedScanOf } from '../scripts/corpus-scans.ts';
import { OcrPool, pdfTextWorker, readDocument } from '../src/extraction-engine/diagnostics.ts';
import { defaultExtractionConfiguration, extractDocument } from '../src/extraction-engine/index.ts';
import { bundleAsDeployed } from './support/lambda-bundle.ts';
import { triggers } from '../src/manifest/triggers.ts';
import { describeMachine, percentile } from './support/machine.ts';

// Text-PDF pages per second through the whole engine (read, route, extract) against raw pdf.js text
// extraction of the same pages in the same run, then OCR seconds per A4 page and the peak RSS.
const corpus = resolve(process.env.PAPERFLOW_CORPUS_DIR ?? '../shared/corpus');
const rounds = Number(process.env.BENCH_ROUNDS ?? 6);
/** OCR rounds (seconds each); 0 skips the OCR figure, for a quick look at the text path. */
const ocrRounds = Number(process.env.BENCH_OCR_ROUNDS ?? 3);

const textPdfs: Uint8Array[] = [];
for (const folder of ['invoice2data', 'zugferd']) {
  for (const name of (await readdir(join(corpus, folder))).filter((file) => file.endsWith('.pdf')).sort()) {
    textPdfs.push(new Uint8Array(await readFile(join(corpus, folder, name))));
  }
}

// Peak RSS per phase: the text path alone, then the OCR worker on top of it (its five language models).
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

/** Milliseconds (wall and CPU) spent in each stage of the engine during the measured rounds. */
const stageMs = { read: 0, extract: 0, readCpu: 0, extractCpu: 0, pages: 0 };

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

async function enginePages(bytes: Uint8Array): Promise<number> {
  // The text-layer path: images on text pages are not OCRed here (that is the OCR figure below).
  const readStartedAt = performance.now();
  const readCpuAt = cpuMs();
  const document = await readDocument(bytes, { mediaType: 'application/pdf', ocrImagesOnTextPages: false });
  const extractStartedAt = performance.now();
  const extractCpuAt = cpuMs();
  extractDocument(document, { configuration: defaultExtractionConfiguration });
  stageMs.read += extractStartedAt - readStartedAt;
  stageMs.extract += performance.now() - extractStartedAt;
  stageMs.readCpu += extractCpuAt - readCpuAt;
  stageMs.extractCpu += cpuMs() - extractCpuAt;
  stageMs.pages += document.pageCount;
  return document.pageCount;
}

/** Pages per second over all text PDFs, wall clock and CPU. */
async function onePass(read: (bytes: Uint8Array) => Promise<number>): Promise<{ wall: number; cpu: number }> {
  const startedAt = performance.now();
  const cpuAt = cpuMs();
  let pages = 0;
  for (const bytes of textPdfs) pages += await read(bytes);
  return { wall: pages / ((performance.now() - startedAt) / 1000), cpu: pages / ((cpuMs() - cpuAt) / 1000) };
}

// Warm-up: JIT, font and cmap data.
await onePass(rawPdfjsPages);
await onePass(enginePages);
stageMs.read = stageMs.extract = stageMs.readCpu = stageMs.extractCpu = stageMs.pages = 0;
// Raw and engine passes alternate (ABBA), so a machine whose load changes during the run (it is
// shared) weighs on both alike; the ratio is the median of the ratios of neighbouring passes.
const raw: { wall: number; cpu: number }[] = [];
const engine: { wall: number; cpu: number }[] = [];
for (let round = 0; round < rounds; round += 1) {
  if (round % 2 === 0) {
    raw.push(await onePass(rawPdfjsPages));
    engine.push(await onePass(enginePages));
  } else {
    engine.push(await onePass(enginePages));
    raw.push(await onePass(rawPdfjsPages));
  }
}
const median = (values: number[]): number => percentile([...values].sort((a, b) => a - b), 0.5);
const rawRate = median(raw.map((pass) => pass.wall));
const engineRate = median(engine.map((pass) => pass.wall));
const wallRatio = median(engine.map((pass, index) => pass.wall / raw[index]!.wall));
const cpuRatio = median(engine.map((pass, index) => pass.cpu / raw[index]!.cpu));
// Per page, so a regression shows which stage it is in: reading (pdf.js, lines, attachments) or
// extraction (routing, label matching, candidates, selection).
const measuredPages = stageMs.pages;
const textPathPeakRss = peakRss;

// OCR: an image-only A4 "scan" rendered from a corpus text PDF, read by a warm single-worker pool.
const ocrSeconds: number[] = [];
if (ocrRounds > 0) {
  const a4Source = textPdfs.find((bytes) => Buffer.from(bytes).includes('/MediaBox [0 0 595')) ?? textPdfs[0]!;
  const scan = await derivedScanOf(a4Source);
  const ocr = new OcrPool({ size: 1 });
  try {
    await readDocument(scan, { mediaType: 'application/pdf', ocr }); // warm-up: worker start, models
    for (let round = 0; round < ocrRounds; round += 1) {
      const startedAt = performance.now();
      const document = await readDocument(scan, { mediaType: 'application/pdf', ocr });
      ocrSeconds.push((performance.now() - startedAt) / 1000 / document.pageCount);
    }
  } finally {
    await ocr.terminate();
  }
}
clearInterval(rssSampler);

// The same text path as deployed: bundled as the stack bundles the extraction function and run by
// plain node (with --enable-source-maps, as the functions set it), in a process of its own. Under tsx
// the peak above is mostly tsx's (it transforms pdf.js and keeps its source maps): raw pdf.js alone
// peaks at ~460 MB under tsx and ~200 MB under node.
const deployedPeakRssMb = await deployedTextPathPeakRssMb();

async function deployedTextPathPeakRssMb(): Promise<number> {
  const projectRoot = resolve(import.meta.dirname, '..');
  await mkdir(join(projectRoot, 'node_modules/.cache'), { recursive: true });
  const outputDir = await mkdtemp(join(projectRoot, 'node_modules/.cache/paperflow-engine-bench-'));
  try {
    const outfile = join(outputDir, 'text-path-passes.mjs');
    const readerModules = triggers.find((trigger) => trigger.nodeModules?.includes('pdfjs-dist'))?.nodeModules ?? [];
    await bundleAsDeployed(join(projectRoot, 'bench/support/text-path-passes.ts'), outfile, readerModules, { sourcemap: true });
    const { stdout } = await promisify(execFile)(process.execPath, ['--enable-source-maps', outfile, corpus, String(rounds + 1)]);
    return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { peakRssMb: number }).peakRssMb;
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

console.log(`extraction engine (${describeMachine()}; load average ${loadavg().map((load) => load.toFixed(1)).join(' ')}; ${textPdfs.length} corpus text PDFs, ${rounds} rounds, raw and engine alternating)`);
console.log(`  raw pdf.js text extraction:   ${rawRate.toFixed(1)} pages/s (median pass; getDocument and getTextContent per page, pdf.js's own worker)`);
console.log(
  `  whole engine (read+extract):  ${engineRate.toFixed(1)} pages/s (median pass; text read ${
    (await pdfTextWorker()) ? 'through readers/pdf-text-worker.ts: composite TrueType font programs not converted, flate streams inflated in the thread' : "through pdf.js's own worker: the text worker does not fit this pdf.js"
  })`,
);
console.log(`  ratio:                        ${(wallRatio * 100).toFixed(1)}% of raw pdf.js (target ≥ 80%); CPU time: ${(cpuRatio * 100).toFixed(1)}%`);
console.log(`  per page, raw pdf.js:         ${(1000 / rawRate).toFixed(1)} ms`);
console.log(`  per page, engine read:        ${(stageMs.read / measuredPages).toFixed(1)} ms, CPU ${(stageMs.readCpu / measuredPages).toFixed(1)} ms (readDocument: pdf.js text, lines, attachments, e-invoice XML)`);
console.log(`  per page, engine extract:     ${(stageMs.extract / measuredPages).toFixed(1)} ms, CPU ${(stageMs.extractCpu / measuredPages).toFixed(1)} ms (extractDocument: routing, labels, candidates, selection)`);
console.log(
  ocrSeconds.length === 0
    ? '  OCR, scanned A4 page:         not measured (BENCH_OCR_ROUNDS=0)'
    : `  OCR, scanned A4 page:         ${percentile(ocrSeconds.sort((a, b) => a - b), 0.5).toFixed(2)} s/page (1 worker, 5 languages)`,
);
console.log(`  peak RSS, text path (tsx):    ${(textPathPeakRss / 2 ** 20).toFixed(0)} MB (${((textPathPeakRss - baselineRss) / 2 ** 20).toFixed(0)} MB over the start)`);
console.log(`  peak RSS, with OCR worker:    ${(peakRss / 2 ** 20).toFixed(0)} MB (both under tsx, raw pdf.js passes included)`);
console.log(`  peak RSS, text path deployed: ${deployedPeakRssMb.toFixed(0)} MB (target < 512 MB; engine bundled as the extraction function is, plain node, ${rounds + 1} passes, no raw pdf.js)`);
