import { defineConfig } from 'vitest/config';

// Tests in tiers (docs/testing.md, Tiers), each tier a set of vitest projects:
//
// - `npm run test:unit`: `unit`, domain logic with in-memory stand-ins: no emulator, no OCR, no socket.
// - `npm test`: `unit`, `ocr` (the readers with tesseract on drawn images) and `integration` (the
//   embedded stack, the local emulators and loopback servers over real sockets).
// - `npm run test:slow`: `fuzz`, `faults` (the local stack killed and restarted), `corpus` (OCR of the
//   shared corpus's scans and photos), `cli` (the command lines run as processes, one per command), `browser`
//   (the review console in chromium) and `infra` (CDK synth and template assertions).
//
// Vitest's default is one worker fewer than the cores: one on a 2-core machine. Every project here
// takes two, and the projects of a tier run in two groups: the short files first, then the files
// that boot a stack (or the fuzz), each of which holds a core for most of its run.
const twoWorkers = 2;
const shortFiles = { groupOrder: 0 };
const stackFiles = { groupOrder: 1 };

export default defineConfig({
  test: {
    projects: [
      // The unit files share their workers' module graph (isolate: false): most of a unit file's time
      // was importing that graph afresh (42 s of the tier's 58 s). A unit test therefore leaves no
      // module state behind: it builds its objects, and restores what it changed (environment,
      // metric sink, fake timers) in afterEach. The stack projects below keep one module graph per file.
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000, isolate: false, maxWorkers: twoWorkers, sequence: shortFiles } },
      // One OCR pool per file; a page takes about a second of a core.
      { test: { name: 'ocr', include: ['test/ocr/**/*.test.ts'], testTimeout: 120_000, pool: 'forks', maxWorkers: twoWorkers, sequence: shortFiles } },
      // Each file boots its own stack (or emulator, or loopback server) on free ports with its own data
      // folder, in its own fork: two run side by side.
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
          maxWorkers: twoWorkers,
          sequence: stackFiles,
        },
      },
      // The slow tier. The API fuzz (docs/testing.md): its own stack, a fixed seed and 200 runs per
      // operation here; `npm run fuzz` raises the runs and draws a seed.
      {
        test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000, pool: 'forks', maxWorkers: twoWorkers, sequence: stackFiles },
      },
      // Processes killed (SIGKILL, SIGTERM) mid-work and started again on the same data folder: the
      // local stack's restart and durability guarantees, a minute or more of restarts each.
      {
        test: { name: 'faults', include: ['test/faults/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000, pool: 'forks', maxWorkers: twoWorkers, sequence: stackFiles },
      },
      { test: { name: 'corpus', include: ['test/corpus/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000, pool: 'forks', maxWorkers: twoWorkers, sequence: shortFiles } },
      // The two command lines as their users run them: a separate process per command (tsx loading the
      // sources: 1-1.5 s of a core each, dozens per file) against a stack, so these files are the
      // slowest of all that boot one (43-65 s each on a quiet 2-core box).
      { test: { name: 'cli', include: ['test/cli/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks', maxWorkers: twoWorkers, sequence: stackFiles } },
      { test: { name: 'browser', include: ['test/browser/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000, pool: 'forks', maxWorkers: twoWorkers, sequence: stackFiles } },
      // The stack test bundles every function in its beforeAll: 90 s on a quiet 2-core box.
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 300_000, maxWorkers: twoWorkers, sequence: shortFiles } },
    ],
  },
});
