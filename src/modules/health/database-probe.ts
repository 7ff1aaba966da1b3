import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Asks the database a real question, so a down database shows on /health. */
export abstract class DatabaseProbe {
  abstract check(): Promise<string>;
}

@Injectable()
export class PostgresDatabaseProbe extends DatabaseProbe {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async check(): Promise<string> {
    await this.db.query('SELECT 1');
    return 'ok';
  }
}

/** The all-in-memory app's database: the in-memory adapters, always there. */
export class InMemoryDatabaseProbe extends DatabaseProbe {
  async check(): Promise<string> {
    return 'ok';
  }
}
