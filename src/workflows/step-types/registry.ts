import { StepTypeRegistry } from '../step-type.ts';
import { delayStep } from './delay.ts';
import { documentInsightsStep } from './document-insights.ts';
import { forEachStep } from './for-each.ts';
import { transformStep } from './transform.ts';
import { webFunctionStep } from './web-function.ts';

// The step types of a workflow definition (DESIGN.md, Workflows): a new one is a module beside these
// and one line here. The order is the one validation messages list them in.
export const builtInStepTypes = [documentInsightsStep, webFunctionStep, transformStep, delayStep, forEachStep] as const;

export type StepType = (typeof builtInStepTypes)[number]['type'];

export const stepTypes: readonly StepType[] = builtInStepTypes.map((type) => type.type);

export const stepTypeRegistry = new StepTypeRegistry(builtInStepTypes);
