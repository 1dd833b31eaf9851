// Derived scans for the corpus evaluation: each page of a text PDF rendered to a grey image with a
// slight tilt and blur, the way an office scanner delivers it, and wrapped as an image-only PDF.
// The corpus has no scanned PDFs of its own; this exercises the OCR path on the same ground truth.

import { PDFDocument } from 'pdf-lib';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import sharp from 'sharp';

const SCAN_DPI = 200;

interface CanvasAndContext {
  canvas: unknown;
  context: { getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray } };
}

interface CanvasFactory {
  create(width: number, height: number): CanvasAndContext;
  destroy(canvasAndContext: CanvasAndContext): void;
}

async function renderPageAsScan(page: pdfjs.PDFPageProxy, canvasFactory: CanvasFactory): Promise<Buffer> {
  const viewport = page.getViewport({ scale: SCAN_DPI / 72 });
  const width = Math.floor(viewport.width);
  const height = Math.floor(viewport.height);
  const target = canvasFactory.create(width, height);
  try {
    await page.render({ canvas: target.canvas as never, canvasContext: target.context as never, viewport, background: '#ffffff' }).promise;
    const pixels = target.context.getImageData(0, 0, width, height).data;
    return await sharp(Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), { raw: { width, height, channels: 4 } })
      .greyscale()
      .rotate(0.4, { background: '#ffffff' })
      .blur(0.6)
      .png()
      .toBuffer();
  } finally {
    canvasFactory.destroy(target);
  }
}

/** The page images of the derived scan (PNG, one per page of the input PDF), as they are embedded in it. */
export async function derivedScanPagesOf(pdfBytes: Uint8Array): Promise<Buffer[]> {
  const loading = pdfjs.getDocument({ data: new Uint8Array(pdfBytes), verbosity: 0 });
  const source = await loading.promise;
  try {
    const images: Buffer[] = [];
    for (let pageNumber = 1; pageNumber <= source.numPages; pageNumber += 1) {
      images.push(await renderPageAsScan(await source.getPage(pageNumber), source.canvasFactory as CanvasFactory));
    }
    return images;
  } finally {
    await loading.destroy();
  }
}

/** An image-only PDF with one rendered, slightly degraded image per page of the input PDF. */
export async function derivedScanOf(pdfBytes: Uint8Array): Promise<Uint8Array> {
  const loading = pdfjs.getDocument({ data: new Uint8Array(pdfBytes), verbosity: 0 });
  const source = await loading.promise;
  try {
    // No creation or modification time: the same input gives the same bytes, so --read-cache finds its readings again.
    const scan = await PDFDocument.create({ updateMetadata: false });
    for (let pageNumber = 1; pageNumber <= source.numPages; pageNumber += 1) {
      const page = await source.getPage(pageNumber);
      const { width, height } = page.getViewport({ scale: 1 });
      const image = await scan.embedPng(await renderPageAsScan(page, source.canvasFactory as CanvasFactory));
      scan.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height });
    }
    return await scan.save();
  } finally {
    await loading.destroy();
  }
}
