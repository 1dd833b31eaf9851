// The contract between the readers (bytes -> positioned text) and the field extractor
// (positioned text -> typed fields). Plain TypeScript: no Lambda or AWS types anywhere in the engine.

/** A box as fractions of the page, origin at the top-left corner (Textract convention). All in [0, 1]. */
export interface Placement {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PositionedWord {
  text: string;
  /** Omitted for formats without page geometry (DOCX, XLSX, CSV, HTML, plain text). */
  placement?: Placement;
  /** OCR confidence in [0, 1]; omitted for text layers, which are exact. */
  confidence?: number;
}

export interface TextLine {
  text: string;
  words: PositionedWord[];
  placement?: Placement;
  confidence?: number;
}

export type PageTextSource = 'text-layer' | 'ocr' | 'structured';

export interface DocumentPage {
  /** 1-based. */
  pageNumber: number;
  source: PageTextSource;
  /** Lines in reading order (top to bottom, then left to right). */
  lines: TextLine[];
  /**
   * Set when OCR found the page's text sideways or upside down: the clockwise turn that sets it upright.
   * The lines are then placed on the page turned upright, so that the field finder sees its head at
   * the top; the placements a client gets are put back on the page as given (placementOnPageAsGiven).
   */
  turn?: QuarterTurn;
  /**
   * Set when OCR read only the paper found in a photo of it (the table around a receipt left out): where
   * that paper is on the page as given. The lines are placed on the paper (turned upright first, when
   * `turn` is set); the placements a client gets are put back on the page as given (placementOnWholePage).
   */
  paper?: Placement;
}

/** A clockwise turn of a page, in degrees. */
export type QuarterTurn = 90 | 180 | 270;

/**
 * A box on the page turned clockwise by `turn` (upright), placed on the page as given. Turning by 90°
 * moves a point (x, y) of the given page to (1 - y, x); the other turns follow the same way.
 */
export function placementOnPageAsGiven(box: Placement, turn: QuarterTurn): Placement {
  switch (turn) {
    case 90:
      return { x: box.y, y: 1 - box.x - box.width, width: box.height, height: box.width };
    case 270:
      return { x: 1 - box.y - box.height, y: box.x, width: box.height, height: box.width };
    case 180:
      return { x: 1 - box.x - box.width, y: 1 - box.y - box.height, width: box.width, height: box.height };
  }
}

/** A box on `region` (as fractions of it), placed on the page the region is part of. */
export function placementOnWholePage(box: Placement, region: Placement): Placement {
  return { x: region.x + box.x * region.width, y: region.y + box.y * region.height, width: box.width * region.width, height: box.height * region.height };
}

/**
 * A check of an OCR page from outside the readers (the field finder's arithmetic: items and tax, tendered
 * and change, rate lines against the total). The reader asks it which lines to read again when the page
 * does not add up, and keeps a reading of them only when the page then agrees.
 */
export interface PageArithmeticCheck {
  /** Indices of the page's lines to read again; empty when the page agrees or prints nothing to check. */
  linesToReread(page: DocumentPage): number[];
  /** Whether the page agrees with itself. */
  agrees(page: DocumentPage): boolean;
}

/** Values read from an embedded or standalone e-invoice (Factur-X/ZUGFeRD/XRechnung CII, or UBL). */
export interface EmbeddedInvoice {
  syntax: 'CII' | 'UBL';
  /** Field name (the corpus/prebuilt names: invoice_number, issue_date, total_amount, ...) to normalized value. */
  values: Record<string, string | number>;
  /**
   * The invoice lines (CII IncludedSupplyChainTradeLineItem, UBL InvoiceLine) as rows of the prebuilt
   * line_items table: description, product_code, quantity, unit (the UN/ECE Rec 20 unit code as
   * given), unit_price, tax_rate, amount. Omitted when the XML has no lines.
   */
  lineItems?: EmbeddedLineItem[];
  /**
   * Fields (invoice_number, total_amount) whose embedded value is not printed on the visible pages: the
   * XML may describe another document. Omitted when the pages have no text to check against.
   */
  notOnPage?: string[];
}

export type EmbeddedLineItem = Record<string, string | number>;

export interface ReadDocument {
  /** Sniffed media type the reader used. */
  mediaType: string;
  pageCount: number;
  pages: DocumentPage[];
  /** True when words carry placements (PDF text layer, OCR). */
  hasGeometry: boolean;
  embeddedInvoice?: EmbeddedInvoice;
  /** ISO 639-1 code of the dominant language when it could be detected. */
  language?: string;
}

export type RejectionReason =
  | 'empty'
  | 'encrypted'
  | 'broken'
  | 'no-text'
  | 'unsupported-format'
  | 'language-not-accepted'
  | 'duplicate';

/** A document-level problem: the extraction ends REJECTED with DOCUMENT_REJECTED and this message. */
export class DocumentRejectedError extends Error {
  constructor(
    readonly reason: RejectionReason,
    message: string,
  ) {
    super(message);
    this.name = 'DocumentRejectedError';
  }
}
