import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/composition/data-source';

/**
 * The data source of the TypeORM CLI, for developers (`npx typeorm migration:generate -d dist/ormconfig.js`).
 * Operators migrate with `npm run migration:run|revert|show` (the admin CLI's db: commands), which
 * take the lock the servers migrate under; the TypeORM CLI takes none.
 */
const url = process.env.DATABASE_URL;
if (!url) throw new Error('Set DATABASE_URL to the database to migrate (the embedded database is migrated by `npm start`).');

export default new DataSource(dataSourceOptions(url));
