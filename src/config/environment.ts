/**
 * The one reader of the process environment. Entry points hand it to their view of the one schema
 * (loadConfig for the API and its workers, loadWorkerServerConfig for the worker server); nothing
 * else reads it.
 */
import { AppConfig, loadConfig } from './app-config';

export function processEnvironment(): NodeJS.ProcessEnv {
  return process.env;
}

/** The admin CLI talks to the database only: it needs no admin token of its own (an empty one, as .env files leave it, included). */
export function loadAdminCliConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return loadConfig({ ...env, ADMIN_TOKEN: env.ADMIN_TOKEN || 'not-needed-by-the-cli-0000' });
}
