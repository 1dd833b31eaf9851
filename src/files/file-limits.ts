// The spec's Limits for files, and the lifetimes DESIGN.md leaves to configuration.

/** 50 MB, counted in binary megabytes: 52,428,800 bytes is accepted, one byte more is 413. */
export const maximumFileBytes = 50 * 1024 * 1024;

/**
 * How much of the start of a file the sniffer reads. Magic numbers need a few bytes; the rest is for
 * text heuristics and for ZIP-based formats, whose entry names (`[Content_Types].xml`, `word/`,
 * `META-INF/MANIFEST.MF`) tell DOCX from XLSX from JAR and usually sit in the first entries.
 */
export const sniffedHeadBytes = 256 * 1024;

/** `contentUrl` lifetime: 15 minutes unless PAPERFLOW_CONTENT_URL_TTL_SECONDS says otherwise (tests). */
export const defaultContentUrlLifetimeSeconds = 15 * 60;
/** Lifetime of the pre-signed POST of an upload session (PAPERFLOW_UPLOAD_URL_TTL_SECONDS). */
export const defaultUploadUrlLifetimeSeconds = 15 * 60;

/** How long the URLs the file service signs live; the configuration reads them (configuration.ts). */
export interface FileUrlLifetimes {
  contentUrlSeconds: number;
  uploadUrlSeconds: number;
}

export const defaultFileUrlLifetimes: FileUrlLifetimes = {
  contentUrlSeconds: defaultContentUrlLifetimeSeconds,
  uploadUrlSeconds: defaultUploadUrlLifetimeSeconds,
};

/** A configured URL lifetime: whole seconds from 1 to 7 days, else (unset, malformed, out of range) `fallback`. */
export function urlLifetimeSecondsFrom(raw: string | undefined, fallback: number): number {
  const configured = Number(raw);
  // A pre-signed URL may live at most 7 days (SigV4); anything else falls back to the default.
  return Number.isInteger(configured) && configured > 0 && configured <= 604_800 ? configured : fallback;
}
