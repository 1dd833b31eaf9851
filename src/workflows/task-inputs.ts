import * as z from 'zod/mini';
import { config } from 'zod/v4/core';
import { en } from 'zod/v4/locales';

// What the Tasks of the workflow run state machine receive (their Parameters); zod at the edge.
// zod/mini for small task bundles; mini installs no messages of its own.
config(en());

const caughtFailure = z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) });

export const runTaskInputSchema = z.object({
  workspaceId: z.string().check(z.minLength(1)),
  runId: z.string().check(z.startsWith('run_')),
});

export const stepTaskInputSchema = z.extend(runTaskInputSchema, { stepId: z.string().check(z.minLength(1)) });

export const runOutcomeInputSchema = z.extend(runTaskInputSchema, { failure: z.optional(caughtFailure) });

export const stepOutcomeInputSchema = z.extend(stepTaskInputSchema, {
  output: z.optional(z.unknown()),
  failure: z.optional(caughtFailure),
  delayCompleted: z.optional(z.boolean()),
  nestedRunsFinished: z.optional(z.boolean()),
});

export const documentInsightsStartInputSchema = z.extend(stepTaskInputSchema, { taskToken: z.string().check(z.minLength(1)) });

export const nestedRunStartInputSchema = z.extend(stepTaskInputSchema, {
  taskToken: z.string().check(z.minLength(1)),
  index: z.number().check(z.int(), z.nonnegative()),
});
