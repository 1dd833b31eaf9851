import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App, Aspects } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { PaperflowStack } from '/work/wt-nag/lib/paperflow-stack.ts';
const ctx = JSON.parse(readFileSync('/work/wt-nag/cdk.json', 'utf8')).context;
const app = new App({ context: { ...ctx, 'aws:cdk:bundling-stacks': [], '@aws-cdk/core:annotationsInValidationReport': false } });
const stack = new PaperflowStack(app, 'NagProbe');
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: false }));
Aspects.of(app).add(new ServerlessChecks({ verbose: false }));
const a = Annotations.fromStack(stack);
const re = Match.stringLikeRegexp('AwsSolutions-.*|Serverless-.*');
const all = [...a.findError('*', re).map(x=>['E',x]), ...a.findWarning('*', re).map(x=>['W',x])] as any[];
const byRule = new Map<string, string[]>();
for (const [k, f] of all) { const rule = String(f.entry.data).split(':')[0]; const l = byRule.get(k+' '+rule) ?? []; l.push(f.id); byRule.set(k+' '+rule, l); }
for (const [r, ids] of byRule) console.log(r, ids.length, ids.slice(0,4).join(' '));
console.log('-----');
const seen = new Set<string>();
for (const [k, f] of all) { const d = String(f.entry.data); const m = d.match(/^(AwsSolutions-IAM[45])\[([^\]]+)\]/); if (m) { const key = m[2].replace(/[A-Za-z0-9]+(?=\.Arn|>)/, 'X'); if (!seen.has(m[2])) { seen.add(m[2]); console.log(m[1], m[2], f.id); } } }
