import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { IdempotencyInterceptor } from './adapters/http/idempotency.interceptor';
import { PostgresIdempotencyStore } from './adapters/postgres/postgres.idempotency-store';
import { IdempotencyStore } from './ports/idempotency-store';

/** Idempotency-Key support for the routes marked @Idempotent, stored in Postgres. */
@Module({
  providers: [
    { provide: IdempotencyStore, inject: [getDataSourceToken()], useFactory: (dataSource: DataSource) => new PostgresIdempotencyStore(dataSource.manager) },
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor }],
  exports: [IdempotencyStore],
})
export class IdempotencyModule {}
