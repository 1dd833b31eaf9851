#!/usr/bin/env node
// The command line for API users. It runs the TypeScript sources through tsx's loader, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../scripts/paperflow.ts');
