// The engine's heavy entry: reading a document's bytes into pages and words (pdf.js, tesseract, sharp).
// The service imports it only with `await import(...)` where a document is read (see ./index.ts);
// .dependency-cruiser.cjs refuses a static import of it outside the engine and its tools.

export { OcrPool, readDocument } from './read-document.ts';
