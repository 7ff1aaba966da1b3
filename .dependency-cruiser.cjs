/**
 * The layer rules of docs/../ARCHITECTURE (hexagon): dependencies point inward, modules meet only at
 * their public ports, and only the composition root knows every module. `npm run lint` runs this
 * (`depcruise src`); test/unit/lint/layer-rules.spec.ts proves each rule catches a planted violation.
 *
 * Words used below:
 *  - a module is src/modules/<name>/; its public surface is its ports/ folder and its Nest module
 *    files (<name>*.module.ts at its root, which other modules' Nest modules import to get the ports bound);
 *  - the composition root is src/app.module.ts, src/create-app.ts, src/bootstrap.ts, src/main.ts and
 *    src/composition/: the one place that knows every module and their adapters.
 */
const FRAMEWORK_PACKAGES = { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], path: 'node_modules/(@nestjs/|typeorm/|bullmq/|express/|ioredis/|pg/)' };

module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'A domain imports no Nest, TypeORM, BullMQ, Express, Redis or Postgres client.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/domain/' },
      to: FRAMEWORK_PACKAGES,
    },
    {
      name: 'domain-stays-in-its-module',
      comment: 'A domain imports its own module\'s domain, src/common and src/engine (a pure library) only.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/domain/' },
      to: { path: '^src/', pathNot: ['^src/modules/$1/domain/', '^src/common/', '^src/contract/', '^src/engine/'] },
    },
    {
      name: 'application-imports-inward',
      comment: 'Use cases import their own domain and ports, other modules\' ports, src/common and the injected src/config only.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/application/' },
      to: { path: '^src/', pathNot: ['^src/modules/$1/(domain|application|ports)/', '^src/modules/[^/]+/ports/', '^src/common/', '^src/contract/', '^src/config/'] },
    },
    {
      name: 'application-uses-no-adapter-technology',
      comment: 'Use cases reach TypeORM, BullMQ, Express, Redis and Postgres only through ports.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/(application|ports)/' },
      to: { dependencyTypes: FRAMEWORK_PACKAGES.dependencyTypes, path: 'node_modules/(@nestjs/(typeorm|bullmq|platform-express)|typeorm/|bullmq/|express/|ioredis/|pg/)' },
    },
    {
      name: 'common-and-infrastructure-know-no-module',
      comment: 'src/common and src/infrastructure never import src/modules: only the composition root knows every module.',
      severity: 'error',
      from: { path: '^src/(common|infrastructure|config)/' },
      to: { path: '^src/(modules|composition)/' },
    },
    {
      name: 'modules-meet-at-ports',
      comment: 'A module reaches another only through that module\'s ports/ (or, from a Nest module file, its Nest module files).',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/ports/', '^src/modules/[^/]+/[^/]+\\.module\\.ts$'] },
    },
    {
      name: 'only-module-files-import-module-files',
      comment: 'Another module\'s Nest module file is imported only by a Nest module file.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: '^src/modules/[^/]+/[^/]+\\.module\\.ts$' },
      to: { path: '^src/modules/[^/]+/[^/]+\\.module\\.ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'nothing-reaches-the-composition-root',
      comment: 'The composition root imports everything; nothing imports it back.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(composition/|app\\.module\\.ts$|create-app\\.ts$|bootstrap\\.ts$|main\\.ts$|worker/|cli/)' },
      to: { path: '^src/(composition/|app\\.module\\.ts$|create-app\\.ts$|bootstrap\\.ts$)' },
    },
    {
      name: 'engine-is-a-library',
      comment: 'src/engine imports no Nest and nothing of the service (modules, infrastructure, worker, config).',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: ['node_modules/@nestjs/', '^src/(modules|infrastructure|worker|config|composition|cli)/', '^src/[^/]+\\.ts$'] },
    },
    {
      name: 'worker-server-reaches-no-module',
      comment: 'The standalone worker server wraps the engine and speaks the shared protocol; it reaches into no module.',
      severity: 'error',
      from: { path: '^src/worker/' },
      to: { path: '^src/(modules|composition)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/web/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
