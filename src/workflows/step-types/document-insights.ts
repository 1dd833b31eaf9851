import * as z from 'zod';
import type { StepTypeDefinition } from '../step-type.ts';
import { jsonValue, literalOrExpression, literalUrlProblems, templatedString } from '../step-inputs.ts';

/**
 * document_insights: a real extraction, started by the StartDocumentInsights state (a
 * `.waitForTaskToken` Task; steps/document-insights.ts), whose end resumes the execution.
 */
export const documentInsightsStep = {
  type: 'document_insights',
  inputs: z
    .strictObject({
      file: jsonValue.optional().meta({ description: 'A file node from the run input, usually "{{ body.<part> }}".' }),
      fileId: templatedString.optional(),
      url: templatedString.optional(),
      labels: literalOrExpression(z.record(z.string(), z.string())).optional(),
    })
    .meta({ description: 'Exactly what to extract: one of file, fileId or url; optional labels.' }),
  // A document URL follows the extraction API's rules: no fragment.
  inputProblems: (inputs, path, rules) => [
    ...(['file', 'fileId', 'url'].filter((key) => inputs[key] !== undefined).length === 1 ? [] : [{ path, message: 'needs exactly one of file, fileId or url' }]),
    ...literalUrlProblems(inputs.url, path, { refuseFragment: true }, rules.outboundUrlProblem),
  ],
  state: 'StartDocumentInsights',
} as const satisfies StepTypeDefinition<'document_insights'>;
