import { AppConfig } from './config/app-config';
import { EmbeddedDatabase, EmbeddedUse, startEmbeddedPostgres } from './infrastructure/database/embedded-postgres.launcher';

/**
 * DATABASE_URL when set; otherwise the embedded Postgres in DATA_DIR, started for the life of this
 * process: owned by the server, shared with it by a tool that runs beside it (`share`).
 */
export async function resolveDatabase(config: AppConfig, log: (line: string) => void, use: EmbeddedUse = 'own'): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: null };
  const embedded = await startEmbeddedPostgres(config.dataDir, config.env.EMBEDDED_PG_PORT, log, use);
  return { url: embedded.url, embedded };
}
