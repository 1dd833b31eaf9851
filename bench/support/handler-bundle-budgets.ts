// What a handler's bundle may weigh (esbuild, minified, as PaperflowFunction deploys it, without its
// source map), checked by test/infra/handler-bundle-sizes.test.ts and reported by
// bench/handler-bundles.ts. The bundle is what a Lambda cold start parses and runs before the first
// request: every handler gets the default; one that needs more has its own row here saying why. A row
// is a ceiling a little above today's size, so growth fails the test rather than passing unnoticed.

const kilobytes = 1024;

/** Every handler of the route and trigger tables, unless named below. */
export const defaultBundleBudgetBytes = 600 * kilobytes;

/** Handlers that legitimately carry more, each with why. */
export const namedBundleBudgets: Record<string, { bytes: number; why: string }> = {
  'functions/extractions/extract-extraction-document.ts': {
    bytes: 2_250 * kilobytes,
    why:
      'the extraction engine whole: readers of spreadsheets and Word files bundled (exceljs, mammoth, jszip), field extraction and ' +
      'its label tables; pdf.js, tesseract and sharp ship beside it as node_modules and are not counted here',
  },
  ...Object.fromEntries(
    [
      'functions/workflows/plan-workflow-run.ts',
      'functions/workflows/run-workflow-step.ts',
      'functions/workflows/start-document-insights-step.ts',
      'functions/workflows/start-nested-workflow-run.ts',
      'functions/workflows/record-workflow-step-outcome.ts',
      'functions/workflows/record-workflow-run-outcome.ts',
      'functions/workflows/sweep-workflow-runs.ts',
      'functions/workflows/redrive-workflow-run.ts',
    ].map((handler) => [
      handler,
      {
        bytes: 780 * kilobytes,
        why:
          'the run engine: jsonata (~80 KB) for step expressions, the step types\' schemas in classic zod (~100 KB with zod\'s core), and ' +
          'the extraction service for document_insights steps. Next cut: one engine per task, zod/mini step schemas',
      },
    ]),
  ),
  'functions/workflows/start-workflow-run.ts': {
    bytes: 920 * kilobytes,
    why: 'the run engine as above, plus the multipart upload of a run\'s input files (busboy, file-type)',
  },
  'functions/extractions/create-extraction-feedback.ts': {
    bytes: 720 * kilobytes,
    why:
      'a corrected value is checked against the workspace configuration: the engine\'s field definitions (value parsers, label ' +
      'tables) and its configuration schema, written in classic zod (~100 KB with zod\'s core, against ~30 KB for zod/mini). Next cut: that schema in zod/mini',
  },
  'functions/extractions/upload-extraction.ts': {
    bytes: 710 * kilobytes,
    why: 'the extraction service plus the multipart upload and content sniffing (busboy, file-type, strtok3: ~110 KB)',
  },
};

export function bundleBudgetBytes(handler: string): number {
  return namedBundleBudgets[handler]?.bytes ?? defaultBundleBudgetBytes;
}
