// The configured validation rules (a sum, an order of dates), checked on the chosen values after
// selection: a broken rule does not change a value, it lowers the confidence of the fields involved
// and is reported, so the caller can fail an extraction whose required field is in doubt.

import { roundConfidence } from './candidate-selection.ts';
import type { DocumentTypeSpecification } from './field-specification.ts';
import type { FieldResult } from './field-result.ts';

export interface ValidationProblem {
  fields: string[];
  message: string;
}

/**
 * Checks the configured rules on the chosen values. A broken rule lowers the confidence of the
 * fields involved; the caller fails the extraction when one of them is required.
 */
export function applyValidations(specification: DocumentTypeSpecification, chosen: Map<string, FieldResult>): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const lower = (names: string[]): void => {
    for (const name of names) {
      const result = chosen.get(name);
      if (result?.confidence !== undefined) result.confidence = roundConfidence(result.confidence * 0.6);
    }
  };
  for (const validation of specification.validations) {
    if (validation.rule === 'sum') {
      const addends = validation.fields.map((name) => chosen.get(name)?.value);
      const totalResult = chosen.get(validation.equals);
      const total = typeof totalResult?.value === 'number' ? totalResult.value - (totalResult.outsideSums ?? 0) : totalResult?.value;
      if (typeof total !== 'number' || addends.some((value) => typeof value !== 'number')) continue;
      const sum = (addends as number[]).reduce((accumulator, value) => accumulator + value, 0);
      if (Math.abs(sum - total) > validation.tolerance + 1e-9) {
        const names = [...validation.fields, validation.equals];
        lower(names);
        problems.push({ fields: names, message: `${validation.fields.join(' + ')} = ${Math.round(sum * 100) / 100}, but ${validation.equals} is ${totalResult?.value}` });
      }
    } else {
      const first = chosen.get(validation.field)?.value;
      const second = chosen.get(validation.other)?.value;
      if (typeof first !== 'string' || typeof second !== 'string') continue;
      const broken = validation.allowEqual ? first > second : first >= second;
      if (broken) {
        lower([validation.field, validation.other]);
        problems.push({ fields: [validation.field, validation.other], message: `${validation.field} (${first}) is not before ${validation.other} (${second})` });
      }
    }
  }
  return problems;
}
