/**
 * A process started with secrets in its environment that sets the engine's environment from its own,
 * as src/bootstrap.ts does, then prints what a spawned child (`env`) sees.
 */
import { runToCompletion } from '../../../../src/engine/media/process';
import { engineProcessEnv, useEngineProcessEnv } from '../../../../src/engine/runner/engine-environment';

useEngineProcessEnv(engineProcessEnv(process.env));
void runToCompletion('/bin/sh', ['-c', 'env']).then(({ stdout }) => process.stdout.write(stdout));
