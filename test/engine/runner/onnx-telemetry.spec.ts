import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { onnx } from 'onnx-proto';
import { OnnxGraphBuilder } from '../../../src/engine/models/onnx/graph-builder';
import { engineProcessEnv } from '../../../src/engine/runner/engine-environment';

/**
 * onnxruntime-node's Linux build sends telemetry to Microsoft from any process that opens a session
 * (engine-environment.ts). It keeps a device id and an event store under $HOME and a log under
 * $TMPDIR, so a process given a fresh HOME and TMPDIR shows whether it ran. ONNX Runtime holds its
 * telemetry back by itself where a CI variable is set, so the processes here start without them,
 * as a server's do; each exits as soon as its session is open, before any upload is tried.
 */
const CI_VARIABLES = ['CI', 'TF_BUILD', 'GITHUB_ACTIONS', 'GITLAB_CI', 'CIRCLECI', 'TRAVIS', 'JENKINS_URL', 'CODEBUILD_BUILD_ID', 'BUILDKITE', 'TEAMCITY_VERSION', 'APPVEYOR', 'BITBUCKET_BUILD_NUMBER'];
const OPEN_SESSION = `require(${JSON.stringify(require.resolve('onnxruntime-node'))}).InferenceSession.create(process.argv[1]).then(() => process.exit(0), (error) => { console.error(error); process.exit(1); })`;

function identityModel(): Uint8Array {
  const graph = new OnnxGraphBuilder();
  graph.addNode('Identity', ['x'], 'y');
  const tensor = { elemType: onnx.TensorProto.DataType.FLOAT, shape: [1, 4] };
  return graph.build({ inputs: [{ name: 'x', ...tensor }], outputs: [{ name: 'y', ...tensor }], opset: 14, graphName: 'identity' });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

describe("ONNX Runtime's telemetry", () => {
  let dir: string;
  let modelPath: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'onnx-telemetry-'));
    modelPath = join(dir, 'identity.onnx');
    writeFileSync(modelPath, identityModel());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** the files a process that opens a session with `env` (given its HOME, made empty here) leaves in its own HOME and TMPDIR */
  function filesLeftBySession(name: string, env: (home: string) => NodeJS.ProcessEnv): string[] {
    const home = join(dir, name);
    mkdirSync(home);
    const started = spawnSync(process.execPath, ['-e', OPEN_SESSION, modelPath], { env: env(home), encoding: 'utf8', timeout: 30_000 });
    expect([started.status, started.stderr]).toEqual([0, '']);
    return filesUnder(home);
  }

  it("is off in the engine's processes: a session opened with their environment leaves no device id, event store or log, where one opened as any process leaves all three", () => {
    const server: NodeJS.ProcessEnv = { ...process.env };
    for (const name of [...CI_VARIABLES, 'ORT_DISABLE_TELEMETRY']) delete server[name];
    const fresh = (home: string) => ({ ...server, HOME: home, TMPDIR: home });

    const plain = filesLeftBySession('plain', fresh);
    expect(plain).toEqual(expect.arrayContaining([join('.cache', 'Microsoft', 'DeveloperTools', '.onnxruntime', 'deviceid'), join('.cache', 'Microsoft', 'DeveloperTools', '.onnxruntime', 'onnxruntime.db')]));
    expect(plain.some((file) => /^mat-debug-\d+\.log$/.test(file))).toBe(true);

    expect(filesLeftBySession('engine', (home) => engineProcessEnv(fresh(home)))).toEqual([]);
  });
});
