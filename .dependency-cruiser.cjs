// The dependency rule, checked by `npm test` (test/unit/architecture/layering.test.ts) and by hand with
// `npx depcruise src functions lib bin scripts bench`.
//
// Layers, outermost first; a module imports its own layer or one further down, never one above:
//
//   client         src/client/ (the typed client API users and the CLI call the API with): HTTP only
//   entry points   functions/ (Lambda handlers), lib/ and bin/ (the CDK app), scripts/, bench/,
//                  src/admin/ (the operator CLI), src/cli/ (the API users' CLI) and src/local/ (the embedded local stack, which plays
//                  API Gateway, S3 notifications and Step Functions); src/console/ (the review console) is browser code,
//                  apart from all of them: it imports only itself, Preact and pdf.js
//   composition    src/composition/ (the one composition root: reads the configuration and builds each
//                  handler's object graph, adapters included); only entry points import it
//   assembly       src/manifest/ (the one place that lists every feature's rows: routes, triggers, resources)
//   adapters       src/http/ (API Gateway events in, typed errors out as the error envelope)
//   domain         src/platform/ (shared, neutral types: errors, route rows, resource access,
//                  pagination), src/events/, and the features: src/auth, src/files, src/extractions,
//                  src/extraction-engine, src/extraction-configurations, src/workspaces, src/outbound,
//                  src/webhooks, src/workflows
//   infrastructure src/infrastructure/ (AWS SDK clients, identifiers, resource names, the logger)
//
// Within a feature, adapters (src/<feature>/aws/) implement the ports the domain declares with the AWS
// SDK; domain code imports neither an adapter nor the SDK, the composition root (src/composition/) puts them together.
// So domain code knows nothing of HTTP, of Lambda event types, of the local stack or of the CDK app,
// and src/http does not know the features (the manifest hands it their rows). The manifest names
// handlers by path (`handler: 'functions/…'`): strings, not imports, so they cross no layer.
// Tests are not cruised: a test may reach any layer.

const domain = '^src/(platform|events|auth|files|extractions|extraction-engine|extraction-configurations|workspaces|outbound|webhooks|workflows)/';
const entryPoints = '^(functions|lib|bin|scripts|bench)/|^src/(admin|cli|local)/';
// `aws-lambda` has no runtime package: its types come from @types/aws-lambda, and an unresolved
// type-only import keeps the bare name.
const lambdaTypes = '(^|/)(@types/)?aws-lambda(/|$)';
// Adapters: the DynamoDB, S3, SQS, SFN, KMS and API Gateway implementations of a feature's ports, in an
// aws/ folder beside the domain code that declares them. The composition root builds them.
const adapters = '^src/[\\w/-]*/aws/';
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-not-to-outer-layers',
      comment: 'Domain code is plain TypeScript: it may not import src/http, src/manifest, the composition root, the local stack, the CDK app or a handler.',
      severity: 'error',
      from: { path: domain },
      to: { path: [entryPoints, '^src/(http|manifest|composition)/'] },
    },
    {
      name: 'composition-only-from-entry-points',
      comment:
        'src/composition builds each handler\'s graph from its row, the resource table and the configuration: only entry points ' +
        '(handlers, the local stack, the admin CLI, the CDK app, scripts, benches) import it. Domain code gets its dependencies passed in ' +
        '(domain-not-to-outer-layers says so for it); src/manifest, which only lists rows, does not reach it either.',
      severity: 'error',
      from: { pathNot: [entryPoints, '^src/composition/', domain] },
      to: { path: '^src/composition/' },
    },
    {
      name: 'domain-not-to-aws-sdk',
      comment:
        'Domain code declares the ports it needs (stores, blobs, queues, executions) and knows nothing of the AWS SDK: ' +
        'only adapters (src/<feature>/aws/) import @aws-sdk.',
      severity: 'error',
      from: { path: domain, pathNot: adapters },
      to: { path: '(^|/)node_modules/@aws-sdk/' },
    },
    {
      name: 'domain-not-to-adapters',
      comment: 'Domain code depends on its ports, never on an adapter: only the composition root and the entry points import an aws/ folder.',
      severity: 'error',
      from: { path: domain, pathNot: adapters },
      to: { path: adapters },
    },
    {
      name: 'domain-not-to-lambda-types',
      comment: 'Lambda event and context types belong to the handlers and adapters (functions/, src/http, src/local), not the domain.',
      severity: 'error',
      from: { path: [domain, '^src/infrastructure/'] },
      to: { path: lambdaTypes },
    },
    {
      name: 'platform-not-to-features',
      comment: 'src/platform sits below every feature; only the scope vocabulary of src/auth is shared with it.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: ['^src/(platform|infrastructure)/', '^src/auth/scopes\\.ts$'] },
    },
    {
      name: 'http-not-to-features',
      comment: 'src/http adapts any route to API Gateway; the rows come from src/manifest. It knows the principal and scopes, nothing else of a feature, and logs through the one logger.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/', pathNot: ['^src/(http|platform)/', '^src/auth/(principal|scopes)\\.ts$', '^src/infrastructure/logger\\.ts$'] },
    },
    {
      name: 'manifest-only-assembles',
      comment: 'src/manifest lists the features\' rows; it does not reach into adapters or entry points.',
      severity: 'error',
      from: { path: '^src/manifest/' },
      to: { path: [entryPoints, '^src/http/'] },
    },
    {
      name: 'infrastructure-not-upward',
      comment: 'src/infrastructure holds AWS clients and names; it imports no domain, adapter or entry point.',
      severity: 'error',
      from: { path: '^src/infrastructure/' },
      to: { path: ['^src/', '^(functions|lib|bin|scripts|bench)/'], pathNot: '^src/infrastructure/' },
    },
    {
      name: 'src-not-to-entry-points',
      comment: 'Nothing in src/ imports a handler, the CDK app, a script or the bench.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(functions|lib|bin|scripts|bench)/' },
    },
    {
      name: 'engine-through-its-public-module',
      comment:
        'The extraction engine is imported only through its public modules, src/extraction-engine/index.ts, reading.ts and ' +
        'configuration-text.ts (an operator\'s YAML, kept out of index.ts so functions do not bundle the YAML parser) (its ' +
        'measuring tools in scripts/ and bench/ also through diagnostics.ts), so its insides can be rearranged without touching a caller.',
      severity: 'error',
      from: { pathNot: '^src/extraction-engine/' },
      to: { path: '^src/extraction-engine/', pathNot: '^src/extraction-engine/(index|reading|configuration-text|diagnostics)\\.ts$' },
    },
    {
      name: 'engine-readers-loaded-on-first-use',
      comment:
        'reading.ts brings pdf.js, tesseract and native addons: the service imports it with `await import(...)` where a document ' +
        'is read, so no other function loads (or, bundled, carries) the readers.',
      severity: 'error',
      from: { pathNot: ['^src/extraction-engine/', '^(scripts|bench)/'] },
      to: { path: '^src/extraction-engine/reading\\.ts$', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'engine-diagnostics-only-for-tools',
      comment: 'diagnostics.ts exposes reader counters and single OCR steps for the eval and the benches; the service does not use them.',
      severity: 'error',
      from: { pathNot: ['^src/extraction-engine/', '^(scripts|bench)/'] },
      to: { path: '^src/extraction-engine/diagnostics\\.ts$' },
    },
    {
      name: 'cli-only-public-api',
      comment:
        'src/cli (paperflow) reaches the service only through the public API over HTTP, so it works the same against any stack: ' +
        'besides itself it may import only the typed client (src/client, its HTTP), the pure modules that give the event types and sign deliveries as the service does, and no AWS SDK.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: {
        pathNot: [
          '^src/cli/',
          '^src/client/(paperflow-client|api-answers|api-schema)\\.ts$',
          '^src/events/event-envelope\\.ts$',
          '^src/webhooks/(webhook-signature|delivery-headers|event-payloads|subscription-secrets)\\.ts$',
          'node_modules/commander/',
          // Its own version (--version) from the package's manifest: data, not the service's code.
          '^package\\.json$',
        ],
        // Node's own modules (fetch, fs, crypto) are what a client is made of.
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'client-only-public-api',
      comment:
        'src/client (the typed client for API users, generated from the OpenAPI document) speaks HTTP through openapi-fetch; ' +
        'besides itself it may import only the pure signing module its webhook helper verifies with.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: {
        pathNot: ['^src/client/', '^src/webhooks/webhook-signature\\.ts$', 'node_modules/openapi-fetch/'],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'console-only-browser',
      comment:
        'src/console (the review console) runs in the browser and reaches the service only through the public API over HTTP: ' +
        'besides itself it may import only the browser-safe part of the typed client (not its node:crypto webhook helper), Preact and pdf.js, nothing server-side and no Node module.',
      severity: 'error',
      from: { path: '^src/console/' },
      to: { pathNot: ['^src/console/', '^src/client/(paperflow-client|api-answers|api-schema)\\.ts$', 'node_modules/(preact|pdfjs-dist)/'] },
    },
    {
      name: 'console-not-imported',
      comment: 'The console is bundled into static files (src/local/console-bundle.ts names its entry by path); no server code imports it.',
      severity: 'error',
      from: { pathNot: '^src/console/' },
      to: { path: '^src/console/' },
    },
    {
      name: 'handlers-not-imported',
      comment: 'A handler is an entry point: deployed and local code name it by path, nothing imports it.',
      severity: 'error',
      from: { pathNot: '^functions/' },
      to: { path: '^functions/' },
    },
  ],
  options: {
    // Type-only imports count: `import type { SQSEvent } from 'aws-lambda'` couples domain code to Lambda
    // as much as a value import does.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk\\.out|test)/' },
  },
};
