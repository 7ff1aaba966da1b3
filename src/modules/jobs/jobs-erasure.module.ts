import { Module } from '@nestjs/common';
import { KeyDataEraser } from '../auth/ports/key-data-eraser';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ClientDataErasure } from './application/client-data-erasure';
import { JobsModule } from './jobs.module';

/** The erasure of a key's data, for the API role's admin route (AuthHttpModule). */
@Module({ imports: [JobsModule, IdempotencyModule], providers: [ClientDataErasure, { provide: KeyDataEraser, useExisting: ClientDataErasure }], exports: [KeyDataEraser] })
export class JobsErasureModule {}
