import 'reflect-metadata';
import { bootstrap } from './bootstrap';

bootstrap().catch((error: Error) => {
  process.stderr.write(`Backdrop could not start: ${error.message}\n`);
  process.exit(1);
});
