import { defineConfig } from 'vitest/config';

// Four kinds of test, one command: unit (domain logic), integration (the embedded stack over real
// HTTP), the API fuzz and infra (CDK template assertions). Integration files each boot their own stack
// on free ports, so they run in separate forks.
//
// Vitest's default is one worker fewer than the cores: one on a 2-core CI machine, where the whole
// suite then ran file after file, the fuzz's four minutes included. Two groups instead: first the
// fuzz beside the unit and infra files on two workers, then the integration files one at a time, as
// before (their stacks, OCR workers and webhook timings were written for a core each).
const firstGroup = { groupOrder: 0 };
const integrationGroup = { groupOrder: 1 };
const twoWorkers = 2;
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000, maxWorkers: twoWorkers, sequence: firstGroup } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
          maxWorkers: 1,
          sequence: integrationGroup,
        },
      },
      // The API fuzz (docs/testing.md): its own stack, a fixed seed and a few runs per operation here;
      // `npm run fuzz` raises the runs and draws a seed.
      {
        test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000, pool: 'forks', maxWorkers: twoWorkers, sequence: firstGroup },
      },
      // The stack test bundles every function in its beforeAll: 90 s on a quiet 2-core box, more beside the fuzz.
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 300_000, maxWorkers: twoWorkers, sequence: firstGroup } },
    ],
  },
});
