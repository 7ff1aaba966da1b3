import { randomBytes, createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { PreviousSecret } from '../../common/signature-check';
import { AppConfig, REMOTE_URL_MARGIN_SECONDS } from '../../config/app-config';

/** The Nest token of this instance's InstanceSecrets. */
export const INSTANCE_SECRETS = Symbol('INSTANCE_SECRETS');

export interface InstanceSecrets {
  urlSigningSecret: string;
  /**
   * secrets URLs signed earlier may carry, never used to sign: URL_SIGNING_SECRET_PREVIOUS (while
   * listed), and the one generated and kept in the database where URL_SIGNING_SECRET now replaces it
   * (for the expiries it could have signed)
   */
  previousUrlSigningSecrets: PreviousSecret[];
  adminTokenHash: string;
  /** set only on the start that generated the admin token, so it can be shown once */
  generatedAdminToken?: string;
}

/** Reads a per-instance value, creating it once: concurrent replicas agree on the first writer's value. */
async function settingOnce(db: DataSource, name: string, create: () => string): Promise<{ value: string; created: boolean }> {
  const candidate = create();
  await db.query(`INSERT INTO app_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [name, candidate]);
  const value = (await setting(db, name)) ?? candidate;
  return { value, created: value === candidate };
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The URL-signing secret comes from URL_SIGNING_SECRET or is generated once and shared through the
 * database (so every replica signs alike). Setting URL_SIGNING_SECRET later (as a move to production
 * does) or changing it refused every URL handed out before, a remote worker's output upload
 * included: URL_SIGNING_SECRET_PREVIOUS are still accepted while listed, and the generated one for
 * the URLs it could have signed before it was replaced (replacedGeneratedSecret).
 * The admin token comes from ADMIN_TOKEN; in embedded mode it is generated at first start, printed
 * once and saved to DATA_DIR/admin-token (mode 600).
 */
export async function loadInstanceSecrets(db: DataSource, config: AppConfig, now = new Date()): Promise<InstanceSecrets> {
  const urlSigningSecret = config.env.URL_SIGNING_SECRET ?? (await settingOnce(db, 'url_signing_secret', () => randomBytes(32).toString('hex'))).value;
  const listed = config.env.URL_SIGNING_SECRET_PREVIOUS.map((secret) => ({ secret }));
  const generated = config.env.URL_SIGNING_SECRET ? await replacedGeneratedSecret(db, config, now) : undefined;
  const previousUrlSigningSecrets = [...listed, ...(generated ? [generated] : [])].filter(({ secret }) => secret !== urlSigningSecret);
  const signing = { urlSigningSecret, previousUrlSigningSecrets };
  if (config.env.ADMIN_TOKEN) return { ...signing, adminTokenHash: hashToken(config.env.ADMIN_TOKEN) };
  const token = `adm_${randomBytes(24).toString('hex')}`;
  const stored = await settingOnce(db, 'admin_token_hash', () => hashToken(token));
  if (!stored.created) return { ...signing, adminTokenHash: stored.value };
  await fs.mkdir(config.dataDir, { recursive: true });
  await fs.writeFile(path.join(config.dataDir, 'admin-token'), `${token}\n`, { mode: 0o600 });
  return { ...signing, adminTokenHash: stored.value, generatedAdminToken: token };
}

/**
 * The generated secret URL_SIGNING_SECRET replaced, for the URLs it signed before: those expiring by
 * the replacement (its first start, kept in the database) and the longest a URL lives (a download
 * URL's TTL and its tenth, a remote job's timeout and its margin). Past that, none: accepted for good,
 * whoever read it (a leak being a reason to set the variable) could sign for any expiry.
 */
async function replacedGeneratedSecret(db: DataSource, config: AppConfig, now: Date): Promise<PreviousSecret | undefined> {
  const generated = await setting(db, 'url_signing_secret');
  if (!generated) return undefined;
  const replacedAt = Number((await settingOnce(db, 'url_signing_secret_replaced_at', () => String(Math.floor(now.getTime() / 1000)))).value);
  const longestUrlSeconds = Math.max(Math.ceil((config.env.SIGNED_URL_TTL_SECONDS * 11) / 10), config.env.WORKER_JOB_TIMEOUT_SECONDS + REMOTE_URL_MARGIN_SECONDS);
  const expiringBy = replacedAt + longestUrlSeconds;
  return expiringBy > now.getTime() / 1000 ? { secret: generated, expiringBy } : undefined;
}

async function setting(db: DataSource, name: string): Promise<string | undefined> {
  const rows: Array<{ value: string }> = await db.query(`SELECT value FROM app_settings WHERE name = $1`, [name]);
  return rows[0]?.value;
}
