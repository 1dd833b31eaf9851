import { useEffect, useRef, useState } from 'preact/hooks';
import { GlobalWorkerOptions, getDocument } from 'pdfjs-dist';
import { confidenceBandOf } from '../confidence.ts';
import type { FieldSelection, PageBox } from './field-selection.ts';

// pdf.js parses in its worker, bundled beside the console: same origin, no CDN.
GlobalWorkerOptions.workerSrc = new URL('pdf.worker.min.js', document.baseURI).href;

/** CSS pixels of a rendered page's width; the page's height follows its aspect ratio. */
const pageWidth = 720;

/**
 * CSS pixels of room between a field's placement and its box's border, on every side: the border
 * stays off the text, and on a phone's narrow page a box of one line of small print keeps an inside
 * instead of becoming a solid bar of border.
 */
export const fieldBoxRoom = 3;
/** The box's border width, as console.css draws `.field-box`. */
const fieldBoxBorder = 2;

interface DocumentPagesProps {
  contentUrl: string;
  mimeType: string | undefined;
  boxes: readonly PageBox[];
  selectedKey: string | undefined;
  onSelect(selection: FieldSelection): void;
}

/**
 * The document's pages (PDF pages drawn by pdf.js, an image as it is) with each box (a placed field,
 * a table's selected row or cell) over it, at its placement's page fractions (origin top-left).
 */
export function DocumentPages({ contentUrl, mimeType, boxes, selectedKey, onSelect }: DocumentPagesProps) {
  const [pages, setPages] = useState<PageImage[] | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);

  useEffect(() => {
    let cancelled = false;
    setPages(undefined);
    setProblem(undefined);
    pageImagesOf(contentUrl, mimeType).then(
      (loaded) => !cancelled && setPages(loaded),
      (error: unknown) => !cancelled && setProblem(`The document could not be shown: ${(error as Error).message}`),
    );
    return () => {
      cancelled = true;
    };
  }, [contentUrl, mimeType]);

  if (problem) return <p class="notice notice-error" role="alert">{problem}</p>;
  if (!pages) return <p aria-live="polite">Drawing the document…</p>;
  return (
    <div class="pages">
      {pages.map((page, index) => (
        <figure class="page" key={index} data-page={index + 1} aria-label={`Page ${index + 1}`}>
          <PageImageView page={page} />
          {boxes
            .filter((box) => box.page === index + 1)
            .map((box) => {
              const { placement, selection } = box;
              const selected = box.key === selectedKey;
              return (
                <button
                  type="button"
                  key={box.key}
                  class={`field-box confidence-${confidenceBandOf(box.confidence)}${selected ? ' selected' : ''}`}
                  data-selection={box.key}
                  data-field-id={selection.fieldId}
                  data-row={selection.row}
                  data-column={selection.column}
                  aria-label={box.label}
                  aria-pressed={selected}
                  style={{
                    left: `calc(${placement.x * 100}% - ${fieldBoxRoom + fieldBoxBorder}px)`,
                    top: `calc(${placement.y * 100}% - ${fieldBoxRoom + fieldBoxBorder}px)`,
                    width: `calc(${placement.width * 100}% + ${2 * (fieldBoxRoom + fieldBoxBorder)}px)`,
                    height: `calc(${placement.height * 100}% + ${2 * (fieldBoxRoom + fieldBoxBorder)}px)`,
                  }}
                  onClick={() => onSelect(selection)}
                />
              );
            })}
        </figure>
      ))}
    </div>
  );
}

type PageImage = { kind: 'canvas'; canvas: HTMLCanvasElement } | { kind: 'image'; url: string };

function PageImageView({ page }: { page: PageImage }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (page.kind === 'canvas' && holder.current) holder.current.replaceChildren(page.canvas);
  }, [page]);
  if (page.kind === 'image') return <img class="page-image" src={page.url} alt="" />;
  return <div class="page-image" ref={holder} />;
}

/** The pre-signed URL is fetched here (CORS), so pdf.js gets bytes and needs no network of its own. */
async function pageImagesOf(contentUrl: string, mimeType: string | undefined): Promise<PageImage[]> {
  const response = await fetch(contentUrl);
  if (!response.ok) throw new Error(`the download answered ${response.status}`);
  if (mimeType?.startsWith('image/')) return [{ kind: 'image', url: URL.createObjectURL(await response.blob()) }];
  const pdf = await getDocument({ data: new Uint8Array(await response.arrayBuffer()) }).promise;
  const pages: PageImage[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const page = await pdf.getPage(number);
    const unscaled = page.getViewport({ scale: 1 });
    // Drawn at the device's pixel density, shown at pageWidth CSS pixels (or less on a phone).
    const viewport = page.getViewport({ scale: (pageWidth / unscaled.width) * (globalThis.devicePixelRatio || 1) });
    const canvas = document.createElement('canvas');
    canvas.width = Math.floor(viewport.width);
    canvas.height = Math.floor(viewport.height);
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `Page ${number} of the document`);
    await page.render({ canvas, viewport }).promise;
    pages.push({ kind: 'canvas', canvas });
  }
  return pages;
}
