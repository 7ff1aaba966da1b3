import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { loadAdminCliConfig } from '../config/environment';
import { resolveDatabase } from '../database-url';
import { applyPendingMigrations, migrate, migrationStatus, revertNewestMigration } from '../composition/data-source';
import { TypeOrmUnitOfWork } from '../infrastructure/database/typeorm.unit-of-work';
import { typeOrmScopeOf } from '../composition/typeorm.transaction-scope';
import { ApiKeyCache } from '../modules/auth/application/api-key-cache';
import { creditsOption } from './credits-option';
import { ApiKeysService } from '../modules/auth/application/api-keys.service';
import { WebhookSecretOverlap } from '../modules/auth/application/webhook-secret-overlap';
import { SystemClock } from '../common/clock';
import { keyView } from '../modules/auth/adapters/http/admin.controller';
import { ApiKeyRecord } from '../modules/auth/adapters/typeorm/api-key.record';
import { TypeOrmApiKeyRepository } from '../modules/auth/adapters/typeorm/typeorm.api-key.repository';

const USAGE = `Usage: npm run admin -- <command> [options]
  keys:create  --client-id ID [--credits N] [--note TEXT]   issue a key (its plaintext is shown once)
  keys:list                                                 list keys by fingerprint
  keys:disable --fingerprint FP                             refuse a key
  keys:enable  --fingerprint FP                             accept a key again
  credits:grant --fingerprint FP --credits N                add credits (deduct with --credits=-N; never below 0)
  webhooks:secret --fingerprint FP                          show the key's webhook signing secret
  webhooks:rotate --fingerprint FP                          replace it (the old one still signs beside it for WEBHOOK_SECRET_OVERLAP_SECONDS)
  db:status                                                 the migrations applied and those pending
  db:migrate                                                apply the pending ones (as a server does at start)
  db:revert                                                 revert the newest one (with the release that added it, before going back)
The keys:, credits: and webhooks: commands first apply pending migrations; the db: commands do only what they say.
Uses DATABASE_URL, or the embedded database in DATA_DIR (default ./data).`;

const COMMANDS = ['keys:create', 'keys:list', 'keys:disable', 'keys:enable', 'credits:grant', 'webhooks:secret', 'webhooks:rotate', 'db:status', 'db:migrate', 'db:revert'];

/** the db: commands, each under the lock the servers migrate under where it changes the schema */
async function runDatabaseCommand(command: string, url: string): Promise<unknown> {
  if (command === 'db:status') return migrationStatus(url);
  if (command === 'db:revert') return { reverted: await revertNewestMigration(url) };
  return { applied: await applyPendingMigrations(url) };
}

function requireOption(value: string | undefined, name: string): string {
  if (!value) throw new Error(`--${name} is required\n\n${USAGE}`);
  return value;
}

async function run(keys: ApiKeysService, command: string | undefined, options: Record<string, string | undefined>): Promise<unknown> {
  switch (command) {
    case 'keys:create': {
      const credits = options.credits === undefined ? 0 : creditsOption(options.credits, 'credits', { allowNegative: false });
      const { apiKey, key } = await keys.create(requireOption(options['client-id'], 'client-id'), options.note ?? null, credits);
      return { api_key: apiKey, ...keyView(key) };
    }
    case 'keys:list':
      return (await keys.list()).map(keyView);
    case 'keys:disable':
      return keyView(await keys.setEnabled(requireOption(options.fingerprint, 'fingerprint'), false));
    case 'keys:enable':
      return keyView(await keys.setEnabled(requireOption(options.fingerprint, 'fingerprint'), true));
    case 'credits:grant':
      return keyView(await keys.grantCredits(requireOption(options.fingerprint, 'fingerprint'), creditsOption(requireOption(options.credits, 'credits'), 'credits', { allowNegative: true })));
    case 'webhooks:secret':
    case 'webhooks:rotate': {
      const fingerprint = requireOption(options.fingerprint, 'fingerprint');
      const key = (await keys.list()).find((candidate) => candidate.fingerprint === fingerprint);
      if (!key) throw new Error(`No API key with fingerprint ${fingerprint}`);
      const view = command === 'webhooks:rotate' ? await keys.rotateWebhookSecret(key) : await keys.webhookSecret(key);
      return { key_fingerprint: fingerprint, webhook_secret: view.secret, previous_secret_valid_until: view.previousValidUntil?.toISOString() ?? null };
    }
    default:
      throw new Error(USAGE);
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { 'client-id': { type: 'string' }, credits: { type: 'string' }, note: { type: 'string' }, fingerprint: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  // answered before the database is started or migrated for it
  const { help, ...options } = values;
  if (help) return void process.stdout.write(`${USAGE}\n`);
  if (!COMMANDS.includes(positionals[0] ?? '')) throw new Error(positionals[0] ? `Unknown command "${positionals[0]}"\n\n${USAGE}` : USAGE);
  const config = loadAdminCliConfig();
  const database = await resolveDatabase(config, () => undefined, 'share');
  let dataSource: DataSource | undefined;
  try {
    if (positionals[0]?.startsWith('db:')) return void process.stdout.write(`${JSON.stringify(await runDatabaseCommand(positionals[0], database.url), null, 2)}\n`);
    dataSource = await migrate(database.url);
    const db = dataSource;
    const keys = new ApiKeysService(
      new TypeOrmApiKeyRepository(db.getRepository(ApiKeyRecord)),
      new TypeOrmUnitOfWork(db, typeOrmScopeOf),
      ApiKeyCache.uncached(),
      new WebhookSecretOverlap(new SystemClock(), config.env.WEBHOOK_SECRET_OVERLAP_SECONDS * 1000),
    );
    process.stdout.write(`${JSON.stringify(await run(keys, positionals[0], options), null, 2)}\n`);
  } finally {
    await dataSource?.destroy();
    await database.embedded?.stop();
  }
}

main().catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
