import { DataSource, Logger } from 'typeorm';
import { dataSourceOptions, migrate } from '../../src/composition/data-source';
import { TypeOrmJobRepository } from '../../src/modules/jobs/adapters/typeorm/typeorm.job.repository';
import { JobRecord } from '../../src/modules/jobs/adapters/typeorm/job.record';
import { TypeOrmRetentionStore } from '../../src/modules/retention/adapters/typeorm/typeorm.retention-store';
import { TypeOrmUsageStore } from '../../src/modules/usage/adapters/typeorm/typeorm.usage-store';
import { TypeOrmWebhookOutbox } from '../../src/modules/webhooks/adapters/typeorm/typeorm.webhook-outbox';
import { createTestDatabase, TestDatabase } from '../support/test-database';

/** every statement the data source runs, with its parameters */
class RecordingLogger implements Logger {
  readonly queries: Array<{ sql: string; parameters: unknown[] }> = [];
  logQuery(sql: string, parameters?: unknown[]): void {
    this.queries.push({ sql, parameters: parameters ?? [] });
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

/**
 * The queries that read tables of millions of rows can use the indexes built for them: each is
 * recorded as its adapter runs it, then planned with sequential scans priced out, so that a plan
 * without the index means the index cannot serve that query (an expression that no longer matches
 * the index's, a column it lacks). On tables this small the planner would scan them anyway.
 */
describe('the hot queries use their indexes (Postgres)', () => {
  let database: TestDatabase;
  let migrated: DataSource;
  let db: DataSource;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    database = await createTestDatabase();
    migrated = await migrate(database.url);
    db = await new DataSource({ ...dataSourceOptions(database.url), logging: ['query'], logger }).initialize();
  }, 60_000);
  afterAll(async () => {
    await db?.destroy();
    await migrated?.destroy();
    await database?.drop();
  });

  /**
   * What the plans of the statements `work` runs look up: the indexes they search by a condition,
   * and the conditions they join by. Nested loops are priced out too: a join whose condition cannot
   * be hashed (an expression of both tables) stays a nested loop, which ran its inner scan per row.
   */
  async function lookups(work: () => Promise<unknown>): Promise<{ indexes: string[]; joins: string[] }> {
    logger.queries.length = 0;
    await work();
    const statements = logger.queries.filter((query) => /^\s*(SELECT|UPDATE|DELETE|WITH)/i.test(query.sql));
    const found = { indexes: new Set<string>(), joins: new Set<string>() };
    await migrated.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      await manager.query('SET LOCAL enable_nestloop = off');
      for (const { sql, parameters } of statements) {
        const [{ 'QUERY PLAN': plan }] = await manager.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters);
        collectLookups(plan, found);
      }
    });
    return { indexes: [...found.indexes].sort(), joins: [...found.joins].sort() };
  }
  const indexesRead = async (work: () => Promise<unknown>): Promise<string[]> => (await lookups(work)).indexes;

  /** indexes the plan searches by a condition (an index read whole is no lookup), and its joins' hash or merge conditions */
  function collectLookups(node: unknown, into: { indexes: Set<string>; joins: Set<string> }): void {
    if (Array.isArray(node)) return node.forEach((child) => collectLookups(child, into));
    if (!node || typeof node !== 'object') return;
    const fields = node as Record<string, unknown>;
    if (typeof fields['Index Name'] === 'string' && fields['Index Cond']) into.indexes.add(fields['Index Name']);
    for (const join of [fields['Hash Cond'], fields['Merge Cond']]) if (typeof join === 'string') into.joins.add(join);
    Object.values(fields).forEach((child) => collectLookups(child, into));
  }

  const owner = '00000000-0000-4000-8000-000000000001';

  describe("retention's search for uploads no job reads", () => {
    const expired = () => new TypeOrmRetentionStore(db).expiredUploads(new Date(), 100);

    it("can join the active jobs by the upload each reads, an expression of the job's alone (a hash join: no scan of the jobs per upload)", async () => {
      expect((await lookups(expired)).joins).toEqual([expect.stringContaining('"substring"(j.video_url, ')]);
    });

    it("compares the very expression of the index of the active jobs by the upload they read (as Postgres writes both), so each upload is one lookup there", async () => {
      const [join] = (await lookups(expired)).joins;
      const expression = /"substring"\(j\.video_url, '[^']*'::text\)/.exec(join)?.[0].replace('j.video_url', 'video_url');
      const [{ definition }] = await migrated.query(`SELECT pg_get_indexdef('jobs_reading_upload'::regclass) AS definition`);
      expect(expression).toBeDefined();
      expect(definition).toContain(`(${expression})`);
    });
  });

  it("the usage summary's sums read the ledger's charges and the job events from their indexes", async () => {
    expect(await indexesRead(() => new TypeOrmUsageStore(db).dailyCounters(owner, new Date(0)))).toEqual(expect.arrayContaining(['credit_ledger_charges_by_key', 'job_events_counts_by_key']));
  });

  it('the hourly prunes take their oldest rows from the indexes by age', async () => {
    expect(await indexesRead(() => new TypeOrmUsageStore(db).pruneRequests(new Date(0)))).toContain('usage_events_by_time');
    expect(await indexesRead(() => new TypeOrmWebhookOutbox(db.manager).pruneFinished(new Date(0)))).toContain('webhook_deliveries_finished');
  });

  it.each([
    ['all statuses', undefined, 'jobs_by_key_created'],
    ['one status', 'completed' as const, 'jobs_by_key_status_created_id'],
  ])("a key's job list (%s) finds its page on the key's index", async (_case, status, index) => {
    const repository = new TypeOrmJobRepository(db.getRepository(JobRecord));
    expect(await indexesRead(() => repository.list({ apiKeyId: owner, status, limit: 20, offset: 100 }))).toContain(index);
  });
});
