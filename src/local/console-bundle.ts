import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { apiBasePath } from '../platform/route-table.ts';

/** One static file of the review console, as served under /console/ and deployed to its bucket. */
export interface ConsoleFile {
  /** Relative to the console's root: `index.html`, `console.js`… */
  path: string;
  contents: Uint8Array;
  contentType: string;
}

const consoleSource = fileURLToPath(new URL('../console/', import.meta.url));
const requireFromHere = createRequire(import.meta.url);

/**
 * Bundles the review console (src/console) into its static files, in memory: the app and pdf.js in
 * one module, the stylesheet, the page, and pdf.js's own worker as its package ships it. Synchronous,
 * so the CDK app can deploy the same files at synth time; esbuild takes well under a second.
 */
export function buildConsoleFiles(): ConsoleFile[] {
  const built = buildSync({
    entryPoints: { console: `${consoleSource}console-app.tsx`, 'console-style': `${consoleSource}console.css` },
    bundle: true,
    write: false,
    outdir: '/console',
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: `${consoleSource}tsconfig.json`,
    logLevel: 'silent',
    define: { PAPERFLOW_API_BASE_PATH: JSON.stringify(apiBasePath) },
  });
  const files: ConsoleFile[] = built.outputFiles.map((output) => {
    const path = output.path.replace(/^.*\/console\//, '').replace('console-style.css', 'console.css');
    return { path, contents: output.contents, contentType: contentTypeOf(path) };
  });
  files.push(
    { path: 'index.html', contents: readFileSync(`${consoleSource}index.html`), contentType: contentTypeOf('index.html') },
    // As .js: S3 and CloudFront name its type from the extension, and a module worker needs a JavaScript type.
    { path: 'pdf.worker.min.js', contents: readFileSync(requireFromHere.resolve('pdfjs-dist/build/pdf.worker.min.mjs')), contentType: contentTypeOf('pdf.worker.min.js') },
  );
  return files;
}

const contentTypes: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

export function contentTypeOf(path: string): string {
  return contentTypes[path.slice(path.lastIndexOf('.') + 1)] ?? 'application/octet-stream';
}

/** Where the console lives, beside the versioned API and outside its OpenAPI document. */
export const consolePathPrefix = '/console';

/**
 * The console's Content-Security-Policy, served by the local stack and by CloudFront alike: its own
 * files only, no inline script or style, no eval, and network access to the API (same origin) and to
 * the origins of documents' pre-signed URLs (`documentOrigins`), nothing else.
 */
export function consoleContentSecurityPolicy(documentOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    `connect-src 'self' ${documentOrigins.join(' ')}`.trim(),
    "worker-src 'self'",
    "font-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
