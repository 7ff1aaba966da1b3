import 'reflect-metadata';
import { bootstrap } from './bootstrap';

bootstrap().catch((error: unknown) => {
  process.stderr.write(`Backdrop could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
