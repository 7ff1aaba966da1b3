import { ObjectLiteral, Repository } from 'typeorm';

/**
 * A raw row (a query's or an UPDATE ... RETURNING's) as the entity TypeORM would have read: each
 * column converted by the entity's own metadata (its types and transformers), by column name.
 */
export function hydratedRecord<T extends ObjectLiteral>(records: Repository<T>, row: Record<string, unknown>): T {
  const { driver } = records.manager.connection;
  const record: Record<string, unknown> = {};
  for (const column of records.metadata.columns) record[column.propertyName] = driver.prepareHydratedValue(row[column.databaseName], column);
  return record as T;
}
