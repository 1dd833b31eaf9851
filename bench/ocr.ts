import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { derivedScanPagesOf } from '../scripts/corpus-scans.ts';
import {
  OcrPool,
  pageLayoutOf,
  prepareOcrRaster,
  readDocument,
  recognizeUpright,
  type OcrImage,
  type OcrLanguage,
  type OcrPoolOptions,
  type UprightReadingOptions,
} from '../src/extraction-engine/diagnostics.ts';
import { defaultExtractionConfiguration, totalArithmeticCheck, type TextLine } from '../src/extraction-engine/index.ts';
import { describeMachine, percentile } from './support/machine.ts';

// OCR seconds per page and how much of the ground truth the words hold, for each candidate engine on
// the same pages in the same run: the corpus receipts (phone photos and scans) and pages of the
// "scans" derived from the corpus text PDFs (as `npm run eval:corpus` makes them), against the native
// `tesseract` command on the same prepared rasters. Field accuracy is `npm run eval:corpus`'s job;
// word recall here says whether the values were read at all: the words of the seller's name, the
// invoice number and the total (as `123.45`) found among the words read.
// BENCH_OCR_RECEIPTS / BENCH_OCR_SCAN_PAGES limit the pages (default all 44 receipts, 20 scan pages);
// BENCH_OCR_CANDIDATES=B,E,native runs only the candidates whose names start with one of these;
// BENCH_OCR_INTERLEAVE=1 reads each page with every candidate in turn (see below).
const corpus = resolve(process.env.PAPERFLOW_CORPUS_DIR ?? '../shared/corpus');
const receiptLimit = Number(process.env.BENCH_OCR_RECEIPTS ?? 1000);
const scanPageLimit = Number(process.env.BENCH_OCR_SCAN_PAGES ?? 20);
const allLanguages: OcrLanguage[] = ['eng', 'deu', 'fra', 'nld', 'pol'];

interface BenchPage {
  name: string;
  group: string;
  /** The encoded image (receipt photo) or the derived scan's page image. */
  image: Buffer;
  truth: string[];
}

function truthTokens(fields: Record<string, unknown>): string[] {
  const tokens: string[] = [];
  if (typeof fields.seller_name === 'string') tokens.push(...fields.seller_name.toUpperCase().split(/\s+/u).filter(Boolean));
  if (typeof fields.invoice_number === 'string') tokens.push(fields.invoice_number.toUpperCase());
  if (typeof fields.total_amount === 'number') tokens.push(fields.total_amount.toFixed(2));
  return tokens;
}

function recalled(truth: string[], text: string): number {
  const words = new Set(text.toUpperCase().split(/\s+/u).map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')));
  // Amounts are found inside words too ("RM80.90", "80.90*"): what matters is that the digits were read.
  return truth.filter((token) => words.has(token) || (/^\d+\.\d\d$/u.test(token) && text.replace(/,/gu, '').includes(token))).length;
}

async function loadPages(): Promise<BenchPage[]> {
  const pages: BenchPage[] = [];
  const receipts = join(corpus, 'receipts');
  for (const name of (await readdir(receipts)).filter((file) => /\.(jpe?g|png)$/iu.test(file)).sort().slice(0, receiptLimit)) {
    const expected = JSON.parse(await readFile(join(receipts, `${name}.expected.json`), 'utf8')) as { fields?: Record<string, unknown> };
    pages.push({ name, group: 'receipt photos (en/ms)', image: await readFile(join(receipts, name)), truth: truthTokens(expected.fields ?? {}) });
  }
  // Scan pages from both folders, alternating, so German, French and English layouts are all in the sample.
  const folders = await Promise.all(
    ['invoice2data', 'zugferd'].map(async (folder) => (await readdir(join(corpus, folder))).filter((file) => file.endsWith('.pdf')).sort().map((file) => join(corpus, folder, file))),
  );
  const pdfs = folders[0]!.flatMap((path, index) => [path, folders[1]![index]].filter((entry): entry is string => entry !== undefined));
  pdfs.push(...folders[1]!.slice(folders[0]!.length));
  let scanPages = 0;
  for (const path of pdfs) {
    if (scanPages >= scanPageLimit) break;
    const expected = JSON.parse(await readFile(path.replace(/\.pdf$/u, '.expected.json'), 'utf8').catch(() => '{}')) as { fields?: Record<string, unknown>; language?: string };
    const images = await derivedScanPagesOf(new Uint8Array(await readFile(path)));
    // Truth values are counted on the first page: the header (seller, number) is there; a total on a later page is not expected on page 1.
    for (const [index, image] of images.entries()) {
      if (scanPages >= scanPageLimit) break;
      scanPages += 1;
      pages.push({ name: `${basename(path)} p${index + 1}`, group: `A4 scans, 200 dpi (${expected.language ?? '?'})`, image, truth: index === 0 ? truthTokens(expected.fields ?? {}) : [] });
    }
  }
  return pages;
}

interface Candidate {
  name: string;
  prepare: (page: BenchPage) => Promise<OcrImage>;
  read: (raster: OcrImage) => Promise<string>;
  close?: () => Promise<void>;
}

const textOf = (lines: TextLine[]): string => lines.map((line) => line.text).join('\n');

function tesseractJsCandidate(name: string, languages: OcrLanguage[], correctLightingAndSlant: boolean): Candidate {
  const pool = new OcrPool({ size: 1, languages });
  return {
    name,
    prepare: (page) => prepareOcrRaster({ input: page.image, correctLightingAndSlant }),
    read: async (raster) => textOf(await pool.recognize(raster, { timeoutMs: 120_000 })),
    close: () => pool.terminate(),
  };
}

/**
 * The reading path itself (`recognizeUpright`: receipts as one block, other pages searched for blocks,
 * other orientations when unsure), with `workers` workers: with two, each page is cut into two bands
 * between text lines that are read at the same time.
 */
function pagePathCandidate(
  name: string,
  workers: number,
  bandsPerWorker = 1,
  reading: UprightReadingOptions = { englishFirst: 'none' },
  poolOptions: OcrPoolOptions = { ensembleSplit: [] },
): Candidate {
  const pool = new OcrPool({ size: workers, languages: allLanguages, bandsPerWorker, ...poolOptions });
  return {
    name,
    prepare: (page) => prepareOcrRaster({ input: page.image }),
    read: async (raster) => textOf((await recognizeUpright(pool, raster, () => 120_000, reading)).lines),
    close: () => pool.terminate(),
  };
}

/**
 * The whole OCR reading of a page as the service does it for an uploaded image (`readDocument`: raster
 * preparation, the page reading of S, then the second looks: the head band, the deciding lines, and the
 * lines of a total whose arithmetic fails), with the default pool. S times the page reading alone, as
 * every round before; R is what a page costs the service, against native tesseract reading it once.
 */
function servicePathCandidate(name: string): Candidate {
  const pool = new OcrPool();
  const arithmeticCheck = totalArithmeticCheck({ configuration: defaultExtractionConfiguration });
  return {
    name,
    // readDocument prepares the raster itself: the page's bytes go in as uploaded.
    prepare: async (page) => ({ bytes: page.image, width: 0, height: 0 }),
    read: async (raster) => (await readDocument(new Uint8Array(raster.bytes), { ocr: pool, arithmeticCheck, pageTimeBudgetMs: 120_000 })).pages.flatMap((page) => page.lines).map((line) => line.text).join('\n'),
    close: () => pool.terminate(),
  };
}

/**
 * Debian's tesseract on the same prepared raster, one thread (as one tesseract.js worker), the languages
 * it has of ours, with Debian's models (tessdata "fast": smaller networks than ours). With `sameModels`
 * it reads with the models the kept path uses (@tesseract.js-data 4.0.0_best_int, unpacked to a
 * directory for `--tessdata-dir`), all five at once, receipts as one block: like for like with S.
 */
async function nativeCandidate(sameModels = false): Promise<Candidate | string> {
  const listed = spawnSync('tesseract', ['--list-langs'], { encoding: 'utf8' });
  if (listed.error || listed.status !== 0) return 'native tesseract: skipped, the `tesseract` command is not installed (Debian: apt-get install tesseract-ocr)';
  const installed = new Set(listed.stdout.split('\n').map((line) => line.trim()));
  const languages = sameModels ? allLanguages : allLanguages.filter((language) => installed.has(language));
  if (languages.length === 0) return 'native tesseract: skipped, none of eng/deu/fra/nld/pol is installed';
  const directory = await mkdtemp(join(tmpdir(), 'paperflow-bench-ocr-'));
  const modelArgs: string[] = [];
  if (sameModels) {
    const require = createRequire(import.meta.url);
    for (const language of allLanguages) {
      const packed = join(dirname(require.resolve(`@tesseract.js-data/${language}/package.json`)), '4.0.0_best_int', `${language}.traineddata.gz`);
      await writeFile(join(directory, `${language}.traineddata`), gunzipSync(await readFile(packed)));
    }
    modelArgs.push('--tessdata-dir', directory);
  }
  const timed = spawnSync('/usr/bin/time', ['-f', '%M', 'true']).status === 0;
  return {
    name: sameModels
      ? `native-same tesseract 5 (${languages.join('+')}, @tesseract.js-data best_int models as the kept path, receipts PSM 6, 1 thread, same raster)`
      : `native tesseract 5 (${languages.join('+')}, Debian's fast models, 1 thread, same raster)`,
    prepare: (page) => prepareOcrRaster({ input: page.image }),
    read: async (raster) => {
      const input = join(directory, 'page.png');
      await writeFile(input, raster.bytes);
      const command = timed ? '/usr/bin/time' : 'tesseract';
      const layout = sameModels && pageLayoutOf(raster) === 'single-block' ? ['--psm', '6'] : [];
      const args = [...(timed ? ['-f', '%M %U %S', 'tesseract'] : []), input, '-', ...modelArgs, '-l', languages.join('+'), '--dpi', '300', '--oem', '1', ...layout];
      const result = spawnSync(command, args, { encoding: 'utf8', env: { ...process.env, OMP_THREAD_LIMIT: '1' }, maxBuffer: 64 * 2 ** 20 });
      if (result.status !== 0) throw new Error(`tesseract failed: ${result.stderr}`);
      if (timed) {
        const [peakKb, user, system] = result.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
        nativePeakKb = Math.max(nativePeakKb, peakKb!);
        childCpuSeconds += user! + system!;
      }
      return result.stdout;
    },
    close: () => rm(directory, { recursive: true, force: true }),
  };
}
let nativePeakKb = 0;
/** CPU seconds of the native tesseract processes, added to the page's critical path. */
let childCpuSeconds = 0;

/**
 * The load on a shared machine hides what two workers gain: the kernel gives each session a share of
 * the cores however many threads it runs. So each page also gets its CPU critical path, what its wall
 * time would be on two otherwise idle cores: the CPU time of every thread of this process (and of a
 * native tesseract child), counting only the busiest of the tesseract.js worker threads, which run at
 * the same time. Linux only (/proc/self/task); the worker threads are the `node` threads started
 * after the bench began.
 */
async function threadCpuSeconds(): Promise<Map<string, { name: string; seconds: number }>> {
  const threads = new Map<string, { name: string; seconds: number }>();
  for (const id of await readdir('/proc/self/task').catch(() => [])) {
    try {
      const stat = await readFile(`/proc/self/task/${id}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      // utime and stime, in clock ticks of 1/100 s.
      threads.set(id, { name, seconds: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return threads;
}
const threadsAtStart = new Set((await threadCpuSeconds()).keys());

function criticalPathSeconds(before: Map<string, { seconds: number }>, after: Map<string, { name: string; seconds: number }>, childSeconds: number): number {
  let serial = childSeconds;
  let busiestWorker = 0;
  for (const [id, thread] of after) {
    const used = thread.seconds - (before.get(id)?.seconds ?? 0);
    if (thread.name === 'node' && !threadsAtStart.has(id)) busiestWorker = Math.max(busiestWorker, used);
    else serial += used;
  }
  return serial + busiestWorker;
}

/**
 * PaddleOCR (PP-OCRv4 detection and recognition, ONNX Runtime) through @gutenye/ocr-node, when it is
 * installed. It is not a dependency of the project (see the extraction README for why it was not
 * chosen); `npm install --no-save @gutenye/ocr-node` beside the project brings it for this row.
 */
async function paddleCandidate(): Promise<Candidate | string> {
  let Ocr: { create(): Promise<{ detect(path: string): Promise<{ text: string }[]> }> };
  try {
    const require = createRequire(import.meta.url);
    Ocr = ((await import(require.resolve('@gutenye/ocr-node'))) as { default: typeof Ocr }).default;
  } catch {
    return 'PaddleOCR (@gutenye/ocr-node): skipped, not installed (it is no dependency of the project; npm install --no-save @gutenye/ocr-node to measure it)';
  }
  const ocr = await Ocr.create();
  const directory = await mkdtemp(join(tmpdir(), 'paperflow-bench-paddle-'));
  return {
    name: 'PaddleOCR PP-OCRv4 (ONNX Runtime, @gutenye/ocr-node)',
    prepare: async (page) => ({ bytes: page.image, width: 0, height: 0 }),
    read: async (raster) => {
      const input = join(directory, 'page.img');
      await writeFile(input, raster.bytes);
      return (await ocr.detect(input)).map((line) => line.text).join('\n');
    },
    close: () => rm(directory, { recursive: true, force: true }),
  };
}

const pages = await loadPages();
const groups = [...new Set(pages.map((page) => page.group))];
console.log(`OCR candidates (${describeMachine()}; ${pages.length} pages: ${groups.map((group) => `${pages.filter((page) => page.group === group).length} ${group}`).join(', ')})`);
console.log(`  s/page = median OCR time of one page (raster preparation included); recall = truth words read; load average ${loadavg().map((load) => load.toFixed(1)).join(' ')}`);

const candidates: (() => Promise<Candidate | string>)[] = [
  async () => tesseractJsCandidate('A  tesseract.js 7, 5 languages, raster as before issue 14', allLanguages, false),
  async () => tesseractJsCandidate('B  tesseract.js 7, 5 languages, lighting flattened + deskewed', allLanguages, true),
  async () => tesseractJsCandidate('B1 tesseract.js 7, eng only, lighting flattened + deskewed', ['eng'], true),
  async () => pagePathCandidate('E  kept path (recognizeUpright: 5 languages, receipts PSM 6, turns tried by the ink), one worker', 1),
  async () => pagePathCandidate('S  kept path, two workers: A4 pages cut into two bands between text lines, read at once (chosen)', 2),
  async () => servicePathCandidate('R  the service\'s whole OCR of an uploaded image: S, then the head band, the deciding lines and a failing total\'s lines read again'),
  async () => pagePathCandidate('S4 as S, four bands taken by the two workers in turn', 2, 2),
  async () => pagePathCandidate('T  receipts read with English first, doubtful lines (a word < 0.8) again with 5 models, stacked, on both workers', 2, 1, { englishFirst: 'receipts', doubtfulWordConfidence: 0.8, arrangement: 'stacked' }),
  async () => pagePathCandidate('P  as T, doubtful lines read in place (the rest of the page blanked), half of them on each worker', 2, 1, { englishFirst: 'receipts', doubtfulWordConfidence: 0.8, arrangement: 'in-place' }),
  async () => pagePathCandidate('T7 as T, doubtful below 0.7', 2, 1, { englishFirst: 'receipts', doubtfulWordConfidence: 0.7, arrangement: 'stacked' }),
  async () => pagePathCandidate('TA as T, A4 pages English first too', 2, 1, { englishFirst: 'all', doubtfulWordConfidence: 0.8, arrangement: 'stacked' }),
  async () => pagePathCandidate('M  as S, receipts read whole by both workers, models split eng+deu+fra | eng+nld+pol, merged word by word', 2, 1, undefined, { ensembleSplit: [['eng', 'deu', 'fra'], ['eng', 'nld', 'pol']] }),
  async () => pagePathCandidate('M2 as M, models split eng+deu+fra | nld+pol', 2, 1, undefined, { ensembleSplit: [['eng', 'deu', 'fra'], ['nld', 'pol']] }),
  async () => pagePathCandidate('M3 as M, models split eng+deu | fra+nld+pol', 2, 1, undefined, { ensembleSplit: [['eng', 'deu'], ['fra', 'nld', 'pol']] }),
  () => nativeCandidate(),
  () => nativeCandidate(true),
  paddleCandidate,
];

const chosenSeconds: number[] = [];
/** Median s/page of each candidate by its short name (A, B, E, S, native), for the ratios against native. */
const medianSeconds = new Map<string, number>();
/** Median CPU critical path per page of each candidate by its short name. */
const criticalMedians = new Map<string, number>();
const nativeSeconds: number[] = [];
const selectedCandidates = process.env.BENCH_OCR_CANDIDATES?.split(',').map((prefix) => prefix.trim()).filter(Boolean);
interface PageResult {
  group: string;
  seconds: number;
  criticalPathSeconds: number;
  found: number;
  truth: number;
}
const running: { candidate: Candidate; warmUpSeconds: number; results: PageResult[]; peakRss: number; nativePeakKb: number }[] = [];
for (const makeCandidate of candidates) {
  const candidate = await makeCandidate();
  if (typeof candidate === 'string') {
    console.log(`  ${candidate}`);
    continue;
  }
  if (selectedCandidates && !selectedCandidates.some((prefix) => candidate.name.startsWith(prefix))) {
    await candidate.close?.();
    continue;
  }
  running.push({ candidate, warmUpSeconds: 0, results: [], peakRss: 0, nativePeakKb: 0 });
}

async function readPage(entry: (typeof running)[number], page: BenchPage): Promise<void> {
  const startedAt = performance.now();
  const threadsBefore = await threadCpuSeconds();
  const childBefore = childCpuSeconds;
  const text = await entry.candidate.read(await entry.candidate.prepare(page));
  const seconds = (performance.now() - startedAt) / 1000;
  const criticalPath = criticalPathSeconds(threadsBefore, await threadCpuSeconds(), childCpuSeconds - childBefore);
  entry.results.push({ group: page.group, seconds, criticalPathSeconds: criticalPath, found: recalled(page.truth, text), truth: page.truth.length });
}

async function warmUp(entry: (typeof running)[number]): Promise<void> {
  if (!interleave) nativePeakKb = 0;
  const startedAt = performance.now();
  await entry.candidate.read(await entry.candidate.prepare(pages[0]!)); // worker start, models
  entry.warmUpSeconds = (performance.now() - startedAt) / 1000;
}

/** Peak RSS of this process while `work` runs. */
async function withPeakRss(work: () => Promise<void>): Promise<number> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  try {
    await work();
    return Math.max(peakRss, process.memoryUsage().rss);
  } finally {
    clearInterval(sampler);
  }
}

// On a shared machine the load changes from minute to minute: BENCH_OCR_INTERLEAVE=1 reads each page
// with every candidate in turn, so all candidates meet the same load (peak RSS is then the process's
// with every candidate's workers alive). Without it each candidate reads all pages, then the next.
const interleave = process.env.BENCH_OCR_INTERLEAVE === '1';
try {
  if (interleave) {
    const peakRss = await withPeakRss(async () => {
      for (const entry of running) await warmUp(entry);
      for (const page of pages) for (const entry of running) await readPage(entry, page);
    });
    for (const entry of running) Object.assign(entry, { peakRss, nativePeakKb });
  } else {
    for (const entry of running) {
      entry.peakRss = await withPeakRss(async () => {
        await warmUp(entry);
        for (const page of pages) await readPage(entry, page);
      });
      entry.nativePeakKb = nativePeakKb;
      await entry.candidate.close?.();
    }
  }
} finally {
  for (const entry of running) await entry.candidate.close?.().catch(() => undefined);
}

for (const { candidate, warmUpSeconds, results, peakRss, nativePeakKb } of running) {
  console.log(`  ${candidate.name}`);
  for (const group of groups) {
    const selected = results.filter((result) => result.group === group);
    const seconds = selected.map((result) => result.seconds).sort((a, b) => a - b);
    const critical = selected.map((result) => result.criticalPathSeconds).sort((a, b) => a - b);
    const found = selected.reduce((sum, result) => sum + result.found, 0);
    const truth = selected.reduce((sum, result) => sum + result.truth, 0);
    console.log(
      `    ${group.padEnd(32)} ${percentile(seconds, 0.5).toFixed(2)} s/page (p90 ${percentile(seconds, 0.9).toFixed(2)}), CPU critical path ${percentile(critical, 0.5).toFixed(2)} s (p90 ${percentile(critical, 0.9).toFixed(2)})  recall ${((100 * found) / Math.max(1, truth)).toFixed(1)}% (${found}/${truth})`,
    );
  }
  const all = results.map((result) => result.seconds).sort((a, b) => a - b);
  const allCritical = results.map((result) => result.criticalPathSeconds).sort((a, b) => a - b);
  criticalMedians.set(candidate.name.split(' ')[0]!, percentile(allCritical, 0.5));
  if (candidate.name.includes('(chosen)')) chosenSeconds.push(...all);
  if (candidate.name.startsWith('native ')) nativeSeconds.push(...all);
  medianSeconds.set(candidate.name.split(' ')[0]!, percentile(all, 0.5));
  const memory = candidate.name.startsWith('native')
    ? `${(nativePeakKb / 1024).toFixed(0)} MB peak RSS of the tesseract process`
    : `${(peakRss / 2 ** 20).toFixed(0)} MB peak RSS of this process${interleave ? ' (all candidates at once)' : ''}`;
  console.log(
    `    all pages: ${percentile(all, 0.5).toFixed(2)} s/page median (p90 ${percentile(all, 0.9).toFixed(2)}), ${(all.reduce((sum, value) => sum + value, 0) / all.length).toFixed(2)} mean; first page with worker start ${warmUpSeconds.toFixed(2)} s; ${memory}`,
  );
}
if (chosenSeconds.length > 0 && nativeSeconds.length > 0) {
  const median = (values: number[]): number => percentile([...values].sort((a, b) => a - b), 0.5);
  console.log(`  chosen path / native tesseract: ${(median(chosenSeconds) / median(nativeSeconds)).toFixed(2)}x the native seconds per page (medians; native reads fewer languages when fewer are installed)`);
}
for (const native of ['native', 'native-same']) {
  const nativeMedian = medianSeconds.get(native);
  if (!nativeMedian) continue;
  const others = (map: Map<string, number>) => [...map].filter(([name]) => !name.startsWith('native'));
  const ratios = others(medianSeconds).map(([name, seconds]) => `${name} ${(seconds / nativeMedian).toFixed(2)}x`);
  if (ratios.length > 0) console.log(`  each / ${native} (median s/page over all pages, same run): ${ratios.join(', ')}`);
  const nativeCritical = criticalMedians.get(native);
  if (nativeCritical) {
    const criticalRatios = others(criticalMedians).map(([name, seconds]) => `${name} ${(seconds / nativeCritical).toFixed(2)}x`);
    console.log(`  each / ${native} (median CPU critical path, i.e. on two idle cores): ${criticalRatios.join(', ')}`);
  }
}
console.log(`  budget: 1.5 s per A4 page at 300 dpi and per receipt photo on 2 cores; load average at the end ${loadavg().map((load) => load.toFixed(1)).join(' ')}`);
