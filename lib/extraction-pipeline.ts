import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { ResourceAccess } from '../src/platform/resource-access.ts';
import { extractionStateMachine, extractionSweeper } from '../src/extractions/extraction-state-machine.ts';
import { PaperflowFunction } from './paperflow-function.ts';
import type { PaperflowStack } from './paperflow-stack.ts';
import type { PaperflowStorage } from './paperflow-storage.ts';
import { bindResourceAccess } from './route-resource-access.ts';

type TaskPlaceholder = keyof typeof extractionStateMachine.taskFunctions;

// The readers load fonts, character maps, WebAssembly, OCR models and native addons from their
// package folders at run time, so esbuild cannot inline them: they ship as node_modules (and the
// function runs on x86_64, the architecture of the addons installed here).
const documentReaderModules = [
  'pdfjs-dist',
  '@napi-rs/canvas',
  'sharp',
  'tesseract.js',
  '@tesseract.js-data/eng',
  '@tesseract.js-data/deu',
  '@tesseract.js-data/fra',
  '@tesseract.js-data/nld',
  '@tesseract.js-data/pol',
];

const taskSettings: Record<TaskPlaceholder, { access: ResourceAccess; memorySize?: number; timeout?: Duration; nodeModules?: string[] }> = {
  MarkExtractionProcessingFunctionArn: { access: { recordsTable: 'readWrite' } },
  // Downloads a document URL (SSRF-guarded) into the files store.
  FetchExtractionDocumentFunctionArn: { access: { recordsTable: 'readWrite', filesBucket: 'readWrite' }, timeout: Duration.seconds(90) },
  // Reading, OCR and field extraction: the one heavy task, with the memory (and so the CPU) for it.
  ExtractDocumentFunctionArn: {
    access: { recordsTable: 'readWrite', filesBucket: 'readWrite' },
    memorySize: 3008,
    timeout: Duration.minutes(5),
    nodeModules: documentReaderModules,
  },
  RecordExtractionOutcomeFunctionArn: { access: { recordsTable: 'readWrite', filesBucket: 'readWrite' } },
};

/**
 * The extraction state machine from `statemachines/extraction.asl.json` with one function per Task,
 * and the sweeper that ends extractions whose execution died, every few minutes.
 */
export class ExtractionPipeline extends Construct {
  readonly stateMachine: StateMachine;
  readonly taskFunctions = new Map<TaskPlaceholder, PaperflowFunction>();
  readonly sweeper: PaperflowFunction;

  constructor(stack: PaperflowStack, id: string, props: { storage: PaperflowStorage }) {
    super(stack, id);
    for (const [placeholder, handlerModule] of Object.entries(extractionStateMachine.taskFunctions) as [TaskPlaceholder, string][]) {
      const settings = taskSettings[placeholder];
      const fn = new PaperflowFunction(this, placeholder.replace(/FunctionArn$/, ''), {
        handlerModule,
        description: `Extraction state machine task (${placeholder.replace(/FunctionArn$/, '')})`,
        ...(settings.memorySize ? { memorySize: settings.memorySize } : {}),
        ...(settings.timeout ? { timeout: settings.timeout } : {}),
        ...(settings.nodeModules ? { nodeModules: settings.nodeModules } : {}),
      });
      bindResourceAccess(fn, settings.access, { storage: props.storage });
      this.taskFunctions.set(placeholder, fn);
    }
    this.stateMachine = stack.addStateMachineFromDefinitionFile(extractionStateMachine.id, {
      definitionFile: extractionStateMachine.definitionFile,
      substitutions: Object.fromEntries([...this.taskFunctions].map(([placeholder, fn]) => [placeholder, fn.functionArn])),
      invokedFunctions: [...this.taskFunctions.values()],
    });

    this.sweeper = new PaperflowFunction(this, 'SweepStuckExtractions', {
      handlerModule: extractionSweeper.handler,
      description: 'Ends extractions stuck in QUEUED or PROCESSING; finishes interrupted events and deletes',
      timeout: Duration.minutes(2),
    });
    bindResourceAccess(this.sweeper, { recordsTable: 'readWrite', filesBucket: 'readWriteDelete' }, { storage: props.storage });
    new Rule(this, 'SweepSchedule', {
      description: 'Runs the stuck-extraction sweeper',
      schedule: Schedule.rate(Duration.minutes(extractionSweeper.scheduleMinutes)),
      targets: [new LambdaTarget(this.sweeper)],
    });
  }
}
