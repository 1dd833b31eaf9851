import { defineConfig } from 'vitest/config';

// Three kinds of test, one command: unit (domain logic), integration (the embedded stack over real
// HTTP) and infra (CDK template assertions). Integration files each boot their own stack on free ports,
// so they run in separate forks.
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
      },
      // The API fuzz (docs/testing.md): its own stack, a fixed seed and a few runs per operation here;
      // `npm run fuzz` raises the runs and draws a seed.
      { test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000, pool: 'forks' } },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000 } },
    ],
  },
});
