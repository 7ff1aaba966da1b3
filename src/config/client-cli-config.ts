/**
 * The client CLI's (`backdrop`) settings from its environment: the API's base URL and the API key.
 * Its --url and --key flags override both. Kept apart from the service's schema: the client needs
 * none of the service's variables, nor its validation libraries.
 */
export interface ClientCliConfig {
  /** BACKDROP_URL, or the local default */
  url: string;
  /** BACKDROP_KEY, when set */
  key: string | undefined;
}

export const DEFAULT_CLIENT_API_URL = 'http://localhost:3000';

export function loadClientCliConfig(env: NodeJS.ProcessEnv = process.env): ClientCliConfig {
  return { url: env.BACKDROP_URL ?? DEFAULT_CLIENT_API_URL, key: env.BACKDROP_KEY };
}
