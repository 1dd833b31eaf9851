import { App, Tags } from 'aws-cdk-lib';
import { PaperflowStack } from '../lib/paperflow-stack.ts';

// Environment-agnostic on purpose: nothing in the stack looks up account or region, so `cdk synth`
// works offline without credentials and the same template deploys to any account.
const app = new App();
const stack = new PaperflowStack(app, 'Paperflow');
Tags.of(stack).add('project', 'paperflow');
app.synth();
