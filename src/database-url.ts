import { AppConfig } from './config/app-config';
import { EmbeddedDatabase, startEmbeddedPostgres } from './infrastructure/database/embedded-postgres.launcher';

/** DATABASE_URL when set; otherwise the embedded Postgres in DATA_DIR, started for the life of this process. */
export async function resolveDatabase(config: AppConfig, log: (line: string) => void): Promise<{ url: string; embedded: EmbeddedDatabase | null }> {
  if (config.databaseUrl) return { url: config.databaseUrl, embedded: null };
  const embedded = await startEmbeddedPostgres(config.dataDir, config.env.EMBEDDED_PG_PORT, log);
  return { url: embedded.url, embedded };
}
