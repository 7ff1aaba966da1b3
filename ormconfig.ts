import { DataSource } from 'typeorm';
import { dataSourceOptions } from './src/composition/data-source';

/**
 * The data source of the TypeORM CLI (`npm run migration:run|revert|show`). The server runs pending
 * migrations itself at start; this is for operators who migrate ahead of a deploy.
 */
const url = process.env.DATABASE_URL;
if (!url) throw new Error('Set DATABASE_URL to the database to migrate (the embedded database is migrated by `npm start`).');

export default new DataSource(dataSourceOptions(url));
