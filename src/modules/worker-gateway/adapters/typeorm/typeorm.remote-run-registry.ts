import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RemoteRun, RemoteRunRegistry } from '../../ports/remote-run-registry';

interface RemoteRunRow {
  endpoint: string;
  run_id: string;
  deadline: Date;
}

/** The remote runs in Postgres (`remote_runs`), one row a task, each statement one round trip. */
@Injectable()
export class TypeOrmRemoteRunRegistry extends RemoteRunRegistry {
  constructor(@InjectDataSource() private readonly db: DataSource) {
    super();
  }

  async find(taskKey: string): Promise<RemoteRun | null> {
    const [row] = (await this.db.query(`SELECT endpoint, run_id, deadline FROM remote_runs WHERE task_key = $1`, [taskKey])) as RemoteRunRow[];
    return row ? { endpoint: row.endpoint, id: row.run_id, deadline: new Date(row.deadline) } : null;
  }

  async remember(taskKey: string, run: RemoteRun, now: Date): Promise<void> {
    await this.db.query(
      `WITH expired AS (DELETE FROM remote_runs WHERE deadline < $5 AND task_key <> $1)
       INSERT INTO remote_runs (task_key, endpoint, run_id, deadline) VALUES ($1, $2, $3, $4)
       ON CONFLICT (task_key) DO UPDATE SET endpoint = EXCLUDED.endpoint, run_id = EXCLUDED.run_id, deadline = EXCLUDED.deadline`,
      [taskKey, run.endpoint, run.id, run.deadline, now],
    );
  }

  async forget(taskKey: string, runId: string): Promise<void> {
    await this.db.query(`DELETE FROM remote_runs WHERE task_key = $1 AND run_id = $2`, [taskKey, runId]);
  }
}
