import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { DocumentRejectedError, placementOnWholePage, type DocumentPage, type Placement, type TextLine } from '../document.ts';
import { OcrPoolTerminatedError, OcrUnavailableError } from './ocr-pool.ts';
import { readOcrPage } from './ocr-page.ts';
import { prepareOcrRaster } from './ocr-raster.ts';
import { rebuildPdfStructure } from './pdf-repair.ts';
import { paintedImageRegions, type PaintedImageRegion } from './pdf-image-regions.ts';
import { linesFromTextItems, readableCharacterCount, type PdfTextItem } from './pdf-text-layer.ts';
import { pdfTextWorker } from './pdf-text-worker.ts';
import { nextStepBudgetMs, pageBudget, type ReadingContext } from './reading-context.ts';
import { readingLimits } from './reading-limits.ts';
import { sortInReadingOrder } from './text-lines.ts';
import { TimeBudgetExceededError, withinTimeBudget } from './time-budget.ts';
import { pageLayoutOf } from './upright-ocr.ts';

// PDF reading with pdf.js (legacy build, the one meant for Node). On Node pdf.js runs its parser on
// the calling thread, fetches nothing over the network when given the bytes and local font/cMap
// folders, and renders through @napi-rs/canvas (its optional dependency), which is what the OCR of
// scanned pages uses.

export interface PdfAttachment {
  fileName: string;
  content: Uint8Array;
}

export interface PdfReading {
  pages: DocumentPage[];
  /** Total pages in the file; `pages` holds at most readingLimits.maxPages of them. */
  pageCount: number;
  /** XML files attached to the PDF (Factur-X/ZUGFeRD/XRechnung/UBL candidates). */
  xmlAttachments: PdfAttachment[];
}

export interface PdfReadingOptions {
  /** OCR large images painted on pages that do have a text layer (a letterhead holding the seller block). */
  ocrImagesOnTextPages: boolean;
}

/** Fewer readable characters than this on a page means its text is in an image: the page is OCRed. */
const minimumTextLayerCharacters = 20;
/** OCR renders at ~300 dpi (pdf.js viewport units are points: 72 per inch). */
const ocrRenderScale = 300 / 72;
/** Images on text pages worth OCR: at least this share of the page area and this pixel size. */
const minimumImageAreaShare = 0.03;
const minimumImagePixels = { width: 300, height: 40 };
const maxImageRegionsPerPage = 3;

const pdfjsPackageDirectory = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

function pdfjsDataFolder(name: string): string {
  return path.join(pdfjsPackageDirectory, name) + path.sep;
}

type BinaryDataKind = 'cMapUrl' | 'standardFontDataUrl' | 'wasmUrl';

// The standard-font, CMap and wasm files pdf.js asks for never change while the process runs, yet
// its Node factory reads them from disk again for every document. Read once, shared by all documents.
const binaryDataFiles = new Map<string, Promise<Uint8Array>>();

/** pdf.js's BinaryDataFactory contract (constructed by pdf.js with the folder URLs), with the files kept in memory. */
class CachedBinaryDataFactory {
  private readonly folders: Partial<Record<BinaryDataKind, string | null>>;

  constructor(folders: Partial<Record<BinaryDataKind, string | null>>) {
    this.folders = folders;
  }

  async fetch({ kind, filename }: { kind: BinaryDataKind; filename: string }): Promise<Uint8Array> {
    const folder = this.folders[kind];
    if (!folder) throw new Error(`Ensure that the \`${kind}\` API parameter is provided.`);
    const file = `${folder}${filename}`;
    let data = binaryDataFiles.get(file);
    if (!data) {
      data = readFile(file).then(
        (buffer) => new Uint8Array(buffer),
        () => {
          throw new Error(`Unable to load ${kind === 'cMapUrl' ? 'CMap' : kind === 'wasmUrl' ? 'wasm' : 'font'} data at: ${file}`);
        },
      );
      binaryDataFiles.set(file, data);
      // A failed read is not remembered: the next document tries again.
      data.catch(() => binaryDataFiles.delete(file));
    }
    // A copy: pdf.js may transfer (detach) the buffer it is given.
    return (await data).slice();
  }
}

export async function readPdf(bytes: Uint8Array, context: ReadingContext, options: PdfReadingOptions): Promise<PdfReading> {
  const { loadingTask, document, openedBytes } = await openDocumentOrRebuilt(bytes, context, await pdfTextWorker());
  const rendering = new RenderingDocument(openedBytes, context);
  try {
    const pageCount = document.numPages;
    const xmlAttachments = await readXmlAttachments(document, context);
    const pages: DocumentPage[] = [];
    const ocrState: OcrAllowance = { ocrPagesLeft: readingLimits.maxOcrPages, imageOcrTextPagesLeft: readingLimits.maxTextPagesWithImageOcr };
    for (let pageNumber = 1; pageNumber <= Math.min(pageCount, readingLimits.maxPages); pageNumber += 1) {
      // pdf.js chains its in-thread work through promises only, so timers (time budgets) and other
      // requests get no turn until it yields; give them one between pages.
      await yieldToEventLoop();
      if (nextStepBudgetMs(context) <= 0) break;
      pages.push(await readPage(document, rendering, pageNumber, context, options, ocrState));
    }
    return { pages, pageCount, xmlAttachments };
  } finally {
    await loadingTask.destroy().catch(() => undefined);
    await rendering.destroy();
  }
}

/**
 * The document opened a second time, with the standard fonts' programs, for the pages that are
 * rendered for OCR. Text extraction needs only a font's widths and Unicode mapping, which pdf.js has
 * for the standard 14 fonts without their programs; loading those programs (LiberationSans and the
 * other standard_fonts files, for every document that names Helvetica or Times without embedding them)
 * converts and repairs each of them for nothing when no page is rendered, which is most documents.
 * Drawing text does need them, so rendering keeps the same input as before.
 */
class RenderingDocument {
  private opened: Promise<{ loadingTask: pdfjs.PDFDocumentLoadingTask; document: pdfjs.PDFDocumentProxy }> | undefined;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly context: ReadingContext,
  ) {}

  /** Runs `draw` with the page as the rendering document has it, and then lets go of the page's data. */
  async withPage<T>(pageNumber: number, draw: (page: pdfjs.PDFPageProxy, canvasFactory: NodeCanvasFactory) => Promise<T>): Promise<T> {
    this.opened ??= (async () => {
      const loadingTask = loadPdf(this.bytes, { forRendering: true, worker: undefined });
      try {
        return { loadingTask, document: await openDocument(loadingTask, this.context) };
      } catch (error) {
        await loadingTask.destroy().catch(() => undefined);
        throw error;
      }
    })();
    const { document } = await this.opened;
    const page = await withinTimeBudget(`Opening page ${pageNumber} for rendering`, nextStepBudgetMs(this.context), document.getPage(pageNumber));
    try {
      return await draw(page, canvasFactoryOf(document));
    } finally {
      page.cleanup();
    }
  }

  async destroy(): Promise<void> {
    const opened = await this.opened?.catch(() => undefined);
    await opened?.loadingTask.destroy().catch(() => undefined);
  }
}

/**
 * Opens a PDF in pdf.js. Text is read through `worker` (pdf-text-worker.ts: pdf.js's worker without the
 * font conversion text does not use) where there is one; pages are drawn with pdf.js's own worker.
 */
function loadPdf(bytes: Uint8Array, { forRendering, worker }: { forRendering: boolean; worker: pdfjs.PDFWorker | undefined }): pdfjs.PDFDocumentLoadingTask {
  return pdfjs.getDocument({
    ...(worker ? { worker } : {}),
    // pdf.js takes ownership of (and may detach) the buffer it gets: give it a copy.
    data: new Uint8Array(bytes),
    // pdf.js 6 has no eval-based font path any more (no isEvalSupported option); fonts are never
    // loaded into the process either (disableFontFace) and system fonts are never consulted.
    useSystemFonts: false,
    disableFontFace: true,
    isOffscreenCanvasSupported: false,
    enableXfa: false,
    // Images larger than this are skipped while decoding: bounds memory on hostile files.
    maxImageSize: readingLimits.maxDecodedImagePixels,
    // Only where pages are drawn (RenderingDocument): text extraction does without the programs.
    ...(forRendering ? { standardFontDataUrl: pdfjsDataFolder('standard_fonts') } : {}),
    cMapUrl: pdfjsDataFolder('cmaps'),
    cMapPacked: true,
    wasmUrl: pdfjsDataFolder('wasm'),
    BinaryDataFactory: CachedBinaryDataFactory,
    iccUrl: pdfjsDataFolder('iccs'),
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
}

/**
 * Opens the PDF; when pdf.js cannot (no trailer naming the catalog, typically a lost or cut-off xref
 * section), once more with the structure rebuilt from the objects in the file (`pdf-repair.ts`).
 */
async function openDocumentOrRebuilt(
  bytes: Uint8Array,
  context: ReadingContext,
  textWorker: pdfjs.PDFWorker | undefined,
): Promise<{ loadingTask: pdfjs.PDFDocumentLoadingTask; document: pdfjs.PDFDocumentProxy; openedBytes: Uint8Array }> {
  const loadingTask = loadPdf(bytes, { forRendering: false, worker: textWorker });
  let openError: unknown;
  try {
    return { loadingTask, document: await openDocument(loadingTask, context), openedBytes: bytes };
  } catch (error) {
    await loadingTask.destroy().catch(() => undefined);
    openError = error;
  }
  const rebuilt = isDamageError(openError) ? rebuildPdfStructure(bytes) : undefined;
  if (!rebuilt) throw rejectionForOpenError(openError);
  const rebuiltTask = loadPdf(rebuilt, { forRendering: false, worker: textWorker });
  try {
    return { loadingTask: rebuiltTask, document: await openDocument(rebuiltTask, context), openedBytes: rebuilt };
  } catch (error) {
    await rebuiltTask.destroy().catch(() => undefined);
    // The rebuilt file failing says no more than the original did.
    throw rejectionForOpenError(isDamageError(error) ? openError : error);
  }
}

function openDocument(loadingTask: pdfjs.PDFDocumentLoadingTask, context: ReadingContext): Promise<pdfjs.PDFDocumentProxy> {
  return withinTimeBudget('Opening the PDF', nextStepBudgetMs(context), loadingTask.promise, () => loadingTask.destroy());
}

function isPasswordError(error: unknown): boolean {
  return (error instanceof Error || (typeof error === 'object' && error !== null)) && String((error as { name?: unknown }).name) === 'PasswordException';
}

/** A structural error worth a rebuild: not a password, not a file too slow to open. */
function isDamageError(error: unknown): boolean {
  return !isPasswordError(error) && !(error instanceof TimeBudgetExceededError);
}

/** Maps pdf.js's open errors (PasswordException, InvalidPDFException, ...) to document rejections. */
function rejectionForOpenError(error: unknown): DocumentRejectedError {
  if (isPasswordError(error)) {
    return new DocumentRejectedError('encrypted', 'The PDF is encrypted and needs a password to open. Upload a copy without password protection.');
  }
  if (error instanceof TimeBudgetExceededError) {
    return new DocumentRejectedError('broken', 'The PDF could not be opened in reasonable time; it is damaged or deliberately malformed.');
  }
  return new DocumentRejectedError('broken', 'The PDF is damaged or incomplete (for example a cut-off download) and cannot be read.');
}

/** Pages whose file-attachment annotations are searched when the document has no attached XML file. */
const pagesSearchedForAttachmentAnnotations = 3;

/**
 * XML files attached to the document (the EmbeddedFiles name tree, where Factur-X and ZUGFeRD put the
 * invoice) or, failing that, to an annotation on one of the first pages (some older producers do that).
 */
async function readXmlAttachments(document: pdfjs.PDFDocumentProxy, context: ReadingContext): Promise<PdfAttachment[]> {
  try {
    const attached = await withinTimeBudget('Reading PDF attachments', nextStepBudgetMs(context), documentXmlAttachments(document));
    if (attached.length > 0) return attached;
    return await withinTimeBudget('Reading PDF attachment annotations', nextStepBudgetMs(context), annotationXmlAttachments(document));
  } catch {
    // A damaged attachment must not cost the visible text: the page content is still read.
    return [];
  }
}

function isSmallXmlFile(fileName: string, content: Uint8Array | null | undefined): content is Uint8Array {
  return fileName.toLowerCase().endsWith('.xml') && content !== null && content !== undefined && content.length <= readingLimits.maxEmbeddedXmlBytes;
}

async function documentXmlAttachments(document: pdfjs.PDFDocumentProxy): Promise<PdfAttachment[]> {
  const attachments = await document.getAttachments();
  const xmlAttachments: PdfAttachment[] = [];
  for (const [id, attachment] of attachments ?? []) {
    const fileName = attachment.filename || id;
    if (!fileName.toLowerCase().endsWith('.xml')) continue;
    const content = attachment.content ?? (await document.getAttachmentContent(id));
    if (isSmallXmlFile(fileName, content)) xmlAttachments.push({ fileName, content });
  }
  return xmlAttachments;
}

/** The fields of a pdf.js FileAttachment annotation this module needs. */
interface FileAttachmentAnnotation {
  annotationType: number;
  fileId?: string;
  file?: { filename?: string; content?: Uint8Array | null };
}

async function annotationXmlAttachments(document: pdfjs.PDFDocumentProxy): Promise<PdfAttachment[]> {
  const xmlAttachments: PdfAttachment[] = [];
  for (let pageNumber = 1; pageNumber <= Math.min(document.numPages, pagesSearchedForAttachmentAnnotations); pageNumber += 1) {
    const annotations = (await (await document.getPage(pageNumber)).getAnnotations()) as FileAttachmentAnnotation[];
    for (const annotation of annotations) {
      if (annotation.annotationType !== pdfjs.AnnotationType.FILEATTACHMENT) continue;
      const fileName = annotation.file?.filename ?? '';
      if (!fileName.toLowerCase().endsWith('.xml')) continue;
      const content = annotation.file?.content ?? (annotation.fileId ? await document.getAttachmentContent(annotation.fileId) : null);
      if (isSmallXmlFile(fileName, content)) xmlAttachments.push({ fileName, content });
    }
  }
  return xmlAttachments;
}

async function readPage(
  document: pdfjs.PDFDocumentProxy,
  rendering: RenderingDocument,
  pageNumber: number,
  context: ReadingContext,
  options: PdfReadingOptions,
  ocrState: OcrAllowance,
): Promise<DocumentPage> {
  let page: pdfjs.PDFPageProxy;
  let textLines: TextLine[];
  try {
    page = await withinTimeBudget(`Opening page ${pageNumber}`, nextStepBudgetMs(context), document.getPage(pageNumber));
    const viewport = page.getViewport({ scale: 1 });
    const textContent = await withinTimeBudget(`Reading the text of page ${pageNumber}`, nextStepBudgetMs(context), page.getTextContent());
    const items = textContent.items.filter((item): item is PdfTextItem & typeof item => 'str' in item);
    textLines = linesFromTextItems(items, viewport);
  } catch (error) {
    // One unreadable page (bad content stream, timeout) leaves the others readable.
    if (error instanceof TimeBudgetExceededError) context.pagesOverBudget.push(pageNumber);
    return { pageNumber, source: 'text-layer', lines: [] };
  }

  try {
    const visibleCharacters = readableCharacterCount(textLines, minimumTextLayerCharacters);
    const isSparse = visibleCharacters < minimumTextLayerCharacters;
    const mayOcr = isSparse ? ocrState.ocrPagesLeft > 0 : options.ocrImagesOnTextPages && ocrState.imageOcrTextPagesLeft > 0;
    if (!mayOcr) return { pageNumber, source: 'text-layer', lines: textLines };
    const viewport = page.getViewport({ scale: 1 });
    const operatorList = await withinTimeBudget(`Listing the images of page ${pageNumber}`, nextStepBudgetMs(context), page.getOperatorList());
    const largeImages = imageRegionsWorthOcr(paintedImageRegions(operatorList, pdfjs.OPS, viewport), viewport.width, viewport.height);
    // A scan: an image and (almost) no text. A page with no text layer and no image may still show
    // text drawn as vector outlines; a sparse page without images is just a short page.
    if (isSparse && (largeImages.length > 0 || visibleCharacters === 0)) {
      ocrState.ocrPagesLeft -= 1;
      const photo = photoPlacedOnPage(largeImages, viewport.width, viewport.height, visibleCharacters);
      const renderScale = photo ? ownResolutionScale(photo) : scanRenderScale(largeImages[0], viewport.width, viewport.height);
      const ocrPage = await rendering.withPage(pageNumber, (drawn, canvasFactory) => ocrWholePage(drawn, pageNumber, canvasFactory, context, renderScale, photo));
      return ocrPage.lines.length > 0 ? ocrPage : { pageNumber, source: 'text-layer', lines: textLines };
    }
    if (!isSparse && largeImages.length > 0) {
      ocrState.imageOcrTextPagesLeft -= 1;
      const imageLines = await rendering.withPage(pageNumber, (drawn, canvasFactory) => ocrImageRegions(drawn, canvasFactory, largeImages, textLines, context));
      if (imageLines.length > 0) return { pageNumber, source: 'text-layer', lines: sortInReadingOrder([...textLines, ...imageLines]) };
    }
    return { pageNumber, source: 'text-layer', lines: textLines };
  } catch (error) {
    // The service's own faults must not pass for a document without text.
    if (error instanceof DocumentRejectedError || error instanceof OcrUnavailableError || error instanceof OcrPoolTerminatedError) throw error;
    // The page's trouble (OCR over its time budget, a rendering failure) keeps what the text layer had.
    if (error instanceof TimeBudgetExceededError) context.pagesOverBudget.push(pageNumber);
    return { pageNumber, source: 'text-layer', lines: textLines };
  } finally {
    page.cleanup();
  }
}

/** OCR still allowed for this document: whole scanned pages, and text pages with large images. */
interface OcrAllowance {
  ocrPagesLeft: number;
  imageOcrTextPagesLeft: number;
}

interface RenderedPage {
  raw: Buffer;
  width: number;
  height: number;
}

/** Minimal view of the canvas pdf.js creates through its Node canvas factory (@napi-rs/canvas). */
interface NodeCanvasAndContext {
  canvas: { width: number; height: number };
  context: { getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray } };
}

interface NodeCanvasFactory {
  create(width: number, height: number): NodeCanvasAndContext;
  destroy(canvasAndContext: NodeCanvasAndContext): void;
}

function canvasFactoryOf(document: pdfjs.PDFDocumentProxy): NodeCanvasFactory {
  return document.canvasFactory as NodeCanvasFactory;
}

/** Renders a page to RGBA pixels at ~300 dpi (or `atMostScale`), scaled down when that would exceed the OCR pixel cap. */
async function renderPage(page: pdfjs.PDFPageProxy, canvasFactory: NodeCanvasFactory, context: ReadingContext, atMostScale = ocrRenderScale): Promise<RenderedPage & { scale: number }> {
  const unscaled = page.getViewport({ scale: 1 });
  const scale = Math.min(atMostScale, Math.sqrt(readingLimits.maxOcrPixels / (unscaled.width * unscaled.height)));
  const viewport = page.getViewport({ scale });
  const width = Math.max(1, Math.floor(viewport.width));
  const height = Math.max(1, Math.floor(viewport.height));
  const target = canvasFactory.create(width, height);
  try {
    const renderTask = page.render({ canvas: target.canvas as never, canvasContext: target.context as never, viewport, background: '#ffffff' });
    await withinTimeBudget(`Rendering page ${page.pageNumber}`, nextStepBudgetMs(context), renderTask.promise, () => renderTask.cancel());
    const pixels = target.context.getImageData(0, 0, width, height).data;
    return { raw: Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), width, height, scale };
  } finally {
    canvasFactory.destroy(target);
  }
}

/** An image covering at least this share of a page with no text is the page's scan. */
const scanAreaShare = 0.5;

/**
 * The scale (pixels per point) to draw a page with no text at for OCR: a scan's own (its image's pixels
 * over the area it is drawn on, whichever way it is turned), at most ~300 dpi. A page whose largest
 * image covers less of it (a logo beside text drawn as outlines) is drawn at ~300 dpi, as its outlines need.
 */
export function scanRenderScale(largestImage: PaintedImageRegion | undefined, pageWidth: number, pageHeight: number): number {
  if (!largestImage) return ocrRenderScale;
  const drawnArea = (largestImage.right - largestImage.left) * (largestImage.bottom - largestImage.top);
  if (drawnArea < pageWidth * pageHeight * scanAreaShare) return ocrRenderScale;
  return ownResolutionScale(largestImage);
}

/** The scale that draws an image at its own resolution (its pixels over the area it covers), at most ~300 dpi. */
export function ownResolutionScale(image: PaintedImageRegion): number {
  const drawnArea = (image.right - image.left) * (image.bottom - image.top);
  return Math.min(ocrRenderScale, Math.sqrt((image.pixelWidth * image.pixelHeight) / drawnArea));
}

/** One image covering less than this share of a page with no text is a photo placed on the page. */
const photoOnPageShare = 0.8;

/**
 * The photo a page with no text shows, when it is one image placed on the page with white around it (a
 * receipt on an expense form, a scanning app's A4 page): read alone, as the photo it is, rather than
 * as an A4 page mostly empty. A page-filling scan, or a page of several images, is read whole.
 */
export function photoPlacedOnPage(largeImages: readonly PaintedImageRegion[], pageWidth: number, pageHeight: number, visibleCharacters: number): PaintedImageRegion | undefined {
  if (visibleCharacters > 0 || largeImages.length !== 1) return undefined;
  const image = largeImages[0]!;
  return (image.right - image.left) * (image.bottom - image.top) < pageWidth * pageHeight * photoOnPageShare ? image : undefined;
}

/**
 * A scanned page read by OCR as a photo is (readOcrPage). A scan below 300 dpi is drawn at its own
 * resolution, so its pixels are resampled once, by the raster's own filter, as a photo's are (drawn
 * larger by pdf.js first, then resampled again, receipts lost their names). A page is then brought to
 * 300 dpi for its small print; a till receipt, whose print is large for its narrow paper, is read at
 * the size a photo of it is (scanned receipts read at 300 dpi lost a seller in six: README,
 * "Fourteenth pass: receipts scanned into a PDF"). A `photo` placed on the page is cut out and read as
 * a page of its own (README, "Fifteenth pass").
 */
async function ocrWholePage(
  page: pdfjs.PDFPageProxy,
  pageNumber: number,
  canvasFactory: NodeCanvasFactory,
  context: ReadingContext,
  renderScale: number,
  photo?: PaintedImageRegion,
): Promise<DocumentPage> {
  const budgetMs = pageBudget(context);
  const rendered = await renderPage(page, canvasFactory, context, renderScale);
  const crop = photo ? cropOf(photo, rendered) : undefined;
  const pixels = crop ? { raw: cropRaw(rendered, crop), width: crop.width, height: crop.height } : rendered;
  const tillReceipt = pageLayoutOf(pixels) === 'single-block';
  const raster = await prepareOcrRaster({
    input: pixels.raw,
    raw: { width: pixels.width, height: pixels.height, channels: 4 },
    atLeastScale: tillReceipt ? 1 : ocrRenderScale / rendered.scale,
    findPaper: true,
  });
  const read = await readOcrPage(raster, pageNumber, context, budgetMs);
  if (!crop) return read;
  // The photo was read as a page of its own: its boxes (on the paper it shows, if any) go back on the PDF page.
  return { ...read, paper: placementOnWholePage(read.paper ?? { x: 0, y: 0, width: 1, height: 1 }, cropOnPage(crop, rendered)) };
}

/** Where a crop of the rendered page lies on the page, as fractions of it. */
function cropOnPage(crop: { left: number; top: number; width: number; height: number }, page: RenderedPage): Placement {
  return { x: crop.left / page.width, y: crop.top / page.height, width: crop.width / page.width, height: crop.height / page.height };
}

/** The pixels of the rendered page an image region covers. */
function cropOf(region: PaintedImageRegion, rendered: RenderedPage & { scale: number }): { left: number; top: number; width: number; height: number } {
  const left = Math.min(rendered.width - 1, Math.max(0, Math.floor(region.left * rendered.scale)));
  const top = Math.min(rendered.height - 1, Math.max(0, Math.floor(region.top * rendered.scale)));
  return {
    left,
    top,
    width: Math.max(1, Math.min(rendered.width, Math.ceil(region.right * rendered.scale)) - left),
    height: Math.max(1, Math.min(rendered.height, Math.ceil(region.bottom * rendered.scale)) - top),
  };
}

/** Images big enough to hold a text block, largest first. */
function imageRegionsWorthOcr(regions: PaintedImageRegion[], pageWidth: number, pageHeight: number): PaintedImageRegion[] {
  const pageArea = pageWidth * pageHeight;
  return regions
    .map((region) => ({
      ...region,
      left: Math.max(0, region.left),
      top: Math.max(0, region.top),
      right: Math.min(pageWidth, region.right),
      bottom: Math.min(pageHeight, region.bottom),
    }))
    .filter((region) => region.right > region.left && region.bottom > region.top)
    .filter((region) => ((region.right - region.left) * (region.bottom - region.top)) / pageArea >= minimumImageAreaShare)
    .filter((region) => region.pixelWidth >= minimumImagePixels.width && region.pixelHeight >= minimumImagePixels.height)
    .sort((first, second) => (second.right - second.left) * (second.bottom - second.top) - (first.right - first.left) * (first.bottom - first.top))
    .slice(0, maxImageRegionsPerPage);
}

/**
 * OCRs the large images of a page that has a text layer and returns the lines found in them that the
 * text layer does not already cover (text printed over a background image is not read twice).
 */
async function ocrImageRegions(
  page: pdfjs.PDFPageProxy,
  canvasFactory: NodeCanvasFactory,
  regions: PaintedImageRegion[],
  textLines: TextLine[],
  context: ReadingContext,
): Promise<TextLine[]> {
  const rendered = await renderPage(page, canvasFactory, context);
  const ocr = await context.ocr();
  const lines: TextLine[] = [];
  for (const region of regions) {
    const crop = cropOf(region, rendered);
    const raster = await prepareOcrRaster({ input: cropRaw(rendered, crop), raw: { width: crop.width, height: crop.height, channels: 4 } });
    // A block of a few lines cut from the page: read whole, as bands gain nothing here and change the reading.
    const regionLines = await ocr.recognize(raster, { timeoutMs: nextStepBudgetMs(context), whole: true });
    lines.push(...regionLines.map((line) => toPageFractions(line, crop, rendered)));
  }
  return lines.filter((line) => !overlapsTextLayer(line, textLines));
}

function cropRaw(rendered: RenderedPage, crop: { left: number; top: number; width: number; height: number }): Buffer {
  const rowBytes = rendered.width * 4;
  const cropped = Buffer.alloc(crop.width * crop.height * 4);
  for (let row = 0; row < crop.height; row += 1) {
    const sourceStart = (crop.top + row) * rowBytes + crop.left * 4;
    rendered.raw.copy(cropped, row * crop.width * 4, sourceStart, sourceStart + crop.width * 4);
  }
  return cropped;
}

/** OCR placed the line within the crop; the contract wants it within the page. */
function toPageFractions(line: TextLine, crop: { left: number; top: number; width: number; height: number }, page: RenderedPage): TextLine {
  const onPage = cropOnPage(crop, page);
  const convert = (placement: Placement) => placementOnWholePage(placement, onPage);
  return {
    ...line,
    placement: line.placement ? convert(line.placement) : undefined,
    words: line.words.map((word) => ({ ...word, placement: word.placement ? convert(word.placement) : undefined })),
  };
}

function overlapsTextLayer(line: TextLine, textLines: TextLine[]): boolean {
  const box = line.placement;
  if (!box) return false;
  const centreX = box.x + box.width / 2;
  const centreY = box.y + box.height / 2;
  return textLines.some(
    (textLine) =>
      textLine.placement !== undefined &&
      centreX >= textLine.placement.x &&
      centreX <= textLine.placement.x + textLine.placement.width &&
      centreY >= textLine.placement.y &&
      centreY <= textLine.placement.y + textLine.placement.height,
  );
}
