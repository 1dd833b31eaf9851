import { NagSuppressions, type NagPackSuppression } from 'cdk-nag';
import type { IConstruct } from 'constructs';

// cdk-nag (AwsSolutions and Serverless packs) checks the stack in test/infra. A finding that is not
// fixed is acknowledged here, on the construct it concerns, with the reason it stands; the list with
// its reasons is in docs/deployment.md ("cdk-nag"), and the infra test checks both stay in step.

export interface NagAcknowledgementOptions {
  /** Only these findings of the rule (e.g. `Resource::<Bucket.Arn>/*`), not every finding of it. */
  appliesTo?: NagPackSuppression['appliesTo'];
  /** Also the construct's children (a role's default policy, a function's resource). */
  applyToChildren?: boolean;
}

export function acknowledgeNagFinding(construct: IConstruct, ruleId: string, reason: string, options: NagAcknowledgementOptions = {}): void {
  NagSuppressions.addResourceSuppressions(
    construct,
    [{ id: ruleId, reason, ...(options.appliesTo ? { appliesTo: options.appliesTo } : {}) }],
    options.applyToChildren ?? false,
  );
}
