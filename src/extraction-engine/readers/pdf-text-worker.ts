import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';

// The pdf.js worker the reader extracts text with: pdf.js's own worker code, loaded a second time with
// one step left out that text does not use, and one step done in the thread (see streamDecompression).
//
// For every embedded font, pdf.js converts the font program into a font a browser could load, even when
// only text is asked for. For a composite TrueType font (Type0 with a CIDFontType2 descendant, what Word,
// LibreOffice and most invoicing tools embed) that conversion walks all 65,536 codes of its Identity
// CMap, remaps every glyph and rebuilds the cmap and OS/2 tables: about half of raw pdf.js's time on the
// corpus text PDFs (38 such fonts per pass over them). Text needs none of it: a glyph's text comes from
// the font's ToUnicode map and its advance from the /W widths, both read before the conversion, and for
// a composite TrueType font the conversion changes neither (it only fills the glyph mapping that drawing
// uses). So this worker skips it for those fonts, with three exclusions that keep text the same even when
// pdf.js would have found the program broken and fallen back to a system font: vertical fonts (the
// fallback turns their glyphs into vertical presentation forms), fonts named like a standard font (the
// fallback rewrites their Unicode map from the standard glyph list), and anything whose program is not
// a TrueType file (an OpenType/CFF program can change the font matrix, hence the widths).
//
// Pages rendered for OCR never come from this worker (RenderingDocument in pdf-reader.ts opens the file
// again with pdf.js's own worker), so what OCR sees is drawn from fully converted fonts.

/** The conversion step in pdf.js's Font constructor, and the same step skipped when text is all that is read. */
const compositeTrueTypeConversion = `        case "CIDFontType2":
          data = this.checkAndRepair(name, file, properties);`;
const compositeTrueTypeConversionForText = `        case "CIDFontType2":
          if (type === "CIDFontType2" && properties.composite && !properties.vertical) {
            const fallbackName = normalizeFontName(name);
            const standardFonts = getStdFontMap();
            const mappedName = getNonStdFontMap()[fallbackName];
            if (!standardFonts[fallbackName] && !(mappedName && standardFonts[mappedName])) {
              adjustWidths(properties);
              break;
            }
          }
          data = this.checkAndRepair(name, file, properties);`;
// The second step replaced: pdf.js inflates a flate stream of 1 KB or more (content streams, font
// programs) through a DecompressionStream, which hands the bytes to libuv's thread pool and resumes on
// a later turn of the event loop. Read one document at a time, as the extraction function does, the
// thread then sits idle for each stream: 15% of the text path's time on the corpus text PDFs. This
// worker inflates in the thread with zlib's synchronous call, the same zlib the DecompressionStream
// wraps, so the bytes are the same; what zlib cannot inflate still returns no bytes, and pdf.js then
// decodes the stream with its own lenient decoder, as it does after a failed DecompressionStream.
const streamDecompression = `    try {
      const {
        readable,
        writable
      } = new DecompressionStream(name);`;
const streamDecompressionInThread = `    try {
      if (name === "deflate" || name === "brotli") {
        return {
          decompressed: new Uint8Array(name === "deflate" ? __paperflowInflateSync(bytes) : __paperflowBrotliDecompressSync(bytes)),
          compressed: bytes
        };
      }
      const {
        readable,
        writable
      } = new DecompressionStream(name);`;
const inThreadDecompressionImport = 'import { inflateSync as __paperflowInflateSync, brotliDecompressSync as __paperflowBrotliDecompressSync } from "node:zlib";\n';
/** Importing pdf.js's worker registers it as the process's in-thread worker; this copy must not. */
const globalWorkerRegistration = `globalThis.pdfjsWorker = {
  WorkerMessageHandler: WorkerMessageHandler
};`;
/** The worker's own definitions the skip uses: were one renamed, the font would fail to load and fall back instead. */
const definitionsUsed = ['function normalizeFontName(', 'const getStdFontMap = ', 'const getNonStdFontMap = ', 'function adjustWidths('];
/** Names the map beside pdf.js's file, which the copy in the temporary folder does not have (and, unminified, needs no map). */
const sourceMapComment = '//# sourceMappingURL=pdf.worker.mjs.map';

const workerFile = path.join(path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'legacy', 'build', 'pdf.worker.mjs');

/** The text worker's source, or undefined when this pdf.js version's code is not the one the steps above were written for. */
export function textWorkerSource(stockSource: string): string | undefined {
  const occursOnce = (text: string) => stockSource.split(text).length === 2;
  if (!occursOnce(compositeTrueTypeConversion) || !occursOnce(streamDecompression) || !occursOnce(globalWorkerRegistration) || !definitionsUsed.every(occursOnce)) return undefined;
  return (inThreadDecompressionImport + stockSource)
    .replace(compositeTrueTypeConversion, compositeTrueTypeConversionForText)
    .replace(streamDecompression, streamDecompressionInThread)
    .replace(globalWorkerRegistration, '')
    .replace(sourceMapComment, '');
}

interface WorkerMessageHandlerModule {
  WorkerMessageHandler: { initializeFromPort(port: InThreadPort): void };
}

/**
 * The message channel between the reader and its in-thread worker, as pdf.js's own LoopbackPort (which
 * pdf.js does not export) does it: messages are cloned and delivered after the current task's
 * microtasks. Each document adds listeners and removes them through the abort signal it passes when it
 * is destroyed; a port that kept them would deliver every message to every document read so far.
 */
class InThreadPort {
  private readonly listeners = new Set<MessageListener>();
  private readonly delivered = Promise.resolve();

  postMessage(message: unknown, transfer?: NonNullable<Parameters<typeof structuredClone>[1]>['transfer']): void {
    const event = { data: structuredClone(message, transfer ? { transfer } : undefined) };
    void this.delivered.then(() => {
      for (const listener of this.listeners) listener.call(this, event);
    });
  }

  addEventListener(_name: 'message', listener: MessageListener, options?: { signal?: AbortSignal }): void {
    if (options?.signal?.aborted) return;
    this.listeners.add(listener);
    options?.signal?.addEventListener('abort', () => this.listeners.delete(listener), { once: true });
  }

  removeEventListener(_name: 'message', listener: MessageListener): void {
    this.listeners.delete(listener);
  }

  terminate(): void {
    this.listeners.clear();
  }

  /** Listeners attached now: one pair for the worker itself and one per document not yet destroyed. */
  get listenerCount(): number {
    return this.listeners.size;
  }
}

type MessageListener = (event: { data: unknown }) => void;

let textWorker: Promise<pdfjs.PDFWorker | undefined> | undefined;

/**
 * The process's text worker, started with the first PDF. Undefined when the installed pdf.js is not the
 * version it was written for: the reader then uses pdf.js's own worker, slower and reading the same text.
 */
export function pdfTextWorker(): Promise<pdfjs.PDFWorker | undefined> {
  textWorker ??= startTextWorker().catch(() => {
    // A process that cannot write its temporary folder reads with pdf.js's own worker; the next PDF does not try again.
    return undefined;
  });
  return textWorker;
}

async function startTextWorker(): Promise<pdfjs.PDFWorker | undefined> {
  const source = textWorkerSource(await readFile(workerFile, 'utf8'));
  if (!source) return undefined;
  const module = (await import(pathToFileURL(await writtenOnce(source)).href)) as WorkerMessageHandlerModule;
  const port = new InThreadPort();
  module.WorkerMessageHandler.initializeFromPort(port);
  return new pdfjs.PDFWorker({ port: port as never, verbosity: pdfjs.VerbosityLevel.ERRORS });
}

/**
 * The source as a module file in the temporary folder, named by its content so processes share it. The
 * folder is called node_modules because that is what marks a file as a package's to the tools that would
 * otherwise transform it on import like the project's own code (vitest's module runner: seconds per
 * test file for pdf.js's 2.4 MB), while pdf.js's own copy, under the project's node_modules, is imported as it is.
 */
async function writtenOnce(source: string): Promise<string> {
  const folder = path.join(tmpdir(), 'paperflow-pdfjs-text-worker', 'node_modules');
  const file = path.join(folder, `pdf.worker-${pdfjs.version}-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.mjs`);
  const existing = await stat(file).catch(() => undefined);
  if (existing?.size === Buffer.byteLength(source)) return file;
  await mkdir(folder, { recursive: true });
  // Written under a name of its own and renamed, so a process never imports a half-written file.
  const partial = `${file}.${process.pid}.${Date.now()}`;
  await writeFile(partial, source);
  await rename(partial, file);
  return file;
}
