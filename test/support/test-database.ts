import { Client } from 'pg';
import { randomBytes } from 'node:crypto';

/** The machine's Postgres (CI starts it): each test file gets a database of its own. */
export const SERVER_URL = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `bd_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(SERVER_URL, name),
    drop: async () => {
      const client = new Client({ connectionString: SERVER_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
