/** a query function: TypeORM answers a DELETE with its rows and how many it deleted */
type Query = (sql: string, parameters: unknown[]) => Promise<unknown>;

/**
 * Deletes the rows `selectIds` picks (a SELECT of ids that ends in its own `LIMIT $n` of `batch`),
 * a batch at a time until one deletes fewer, so that a first prune of a large table holds no long
 * lock. Answers how many went.
 */
export async function deleteInBatches(query: Query, table: string, selectIds: string, parameters: unknown[], batch: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const [, count] = (await query(`DELETE FROM ${table} WHERE id IN (${selectIds})`, [...parameters, batch])) as [unknown[], number];
    deleted += count;
    if (count < batch) return deleted;
  }
}
