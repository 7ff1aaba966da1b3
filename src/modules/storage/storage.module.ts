import { Module } from '@nestjs/common';
import { FilesController } from './adapters/http/files.controller';

/** Serves signed local-storage download URLs. */
@Module({ controllers: [FilesController] })
export class StorageModule {}
