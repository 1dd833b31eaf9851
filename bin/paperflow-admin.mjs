#!/usr/bin/env node
// The operator CLI. It runs the TypeScript sources through tsx's loader, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../scripts/paperflow-admin.ts');
