// The engine's second public module, for its measuring tools only (scripts/eval-corpus.ts and the
// benches): counters the readers keep and the OCR steps a benchmark times one by one. The service
// itself imports ./index.ts; .dependency-cruiser.cjs lets only scripts/ and bench/ import this.

export { isValidIban, normalizeIban } from './values/iban.ts';
export { arithmeticStatistics, headReadAheadStatistics, headSecondLookStatistics, secondLookStatistics } from './readers/line-second-look.ts';
export { missedLineStatistics } from './readers/missed-lines.ts';
export { secondRecognitionStatistics } from './readers/second-recognition.ts';
export { OcrPool, ocrLanguages, type OcrImage, type OcrLanguage, type OcrPoolOptions } from './readers/ocr-pool.ts';
export { prepareOcrRaster } from './readers/ocr-raster.ts';
export { pdfTextWorker } from './readers/pdf-text-worker.ts';
export { sniffMediaType } from './readers/media-type.ts';
export { pageLayoutOf, recognizeUpright, type UprightReadingOptions } from './readers/upright-ocr.ts';
export { readDocument } from './read-document.ts';
