import { randomBytes, createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';

/** The Nest token of this instance's InstanceSecrets. */
export const INSTANCE_SECRETS = Symbol('INSTANCE_SECRETS');

export interface InstanceSecrets {
  urlSigningSecret: string;
  adminTokenHash: string;
  /** set only on the start that generated the admin token, so it can be shown once */
  generatedAdminToken?: string;
}

/** Reads a per-instance value, creating it once: concurrent replicas agree on the first writer's value. */
async function settingOnce(db: DataSource, name: string, create: () => string): Promise<{ value: string; created: boolean }> {
  const candidate = create();
  await db.query(`INSERT INTO app_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [name, candidate]);
  const rows: Array<{ value: string }> = await db.query(`SELECT value FROM app_settings WHERE name = $1`, [name]);
  return { value: rows[0].value, created: rows[0].value === candidate };
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The URL-signing secret comes from URL_SIGNING_SECRET or is generated once and shared through the
 * database (so every replica signs alike). The admin token comes from ADMIN_TOKEN; in embedded mode
 * it is generated at first start, printed once and saved to DATA_DIR/admin-token (mode 600).
 */
export async function loadInstanceSecrets(db: DataSource, config: AppConfig): Promise<InstanceSecrets> {
  const urlSigningSecret = config.env.URL_SIGNING_SECRET ?? (await settingOnce(db, 'url_signing_secret', () => randomBytes(32).toString('hex'))).value;
  if (config.env.ADMIN_TOKEN) return { urlSigningSecret, adminTokenHash: hashToken(config.env.ADMIN_TOKEN) };
  const token = `adm_${randomBytes(24).toString('hex')}`;
  const stored = await settingOnce(db, 'admin_token_hash', () => hashToken(token));
  if (!stored.created) return { urlSigningSecret, adminTokenHash: stored.value };
  await fs.mkdir(config.dataDir, { recursive: true });
  await fs.writeFile(path.join(config.dataDir, 'admin-token'), `${token}\n`, { mode: 0o600 });
  return { urlSigningSecret, adminTokenHash: stored.value, generatedAdminToken: token };
}
