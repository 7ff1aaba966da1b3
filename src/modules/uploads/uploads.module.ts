import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AuthModule } from '../auth/auth.module';
import { UploadsController } from './adapters/http/uploads.controller';
import { VideoUploadStorageEngine } from './adapters/http/video-upload.storage-engine';
import { UploadsService } from './application/uploads.service';
import { UploadsCoreModule } from './uploads-core.module';

@Module({
  imports: [
    AuthModule,
    UploadsCoreModule,
    MulterModule.registerAsync({
      imports: [UploadsCoreModule],
      inject: [UploadsService, APP_CONFIG],
      useFactory: (uploads: UploadsService, config: AppConfig) => ({
        storage: new VideoUploadStorageEngine(uploads),
        limits: { fileSize: config.maxUploadBytes, files: 1, fields: 20, parts: 25 },
        // a filename without a stated charset is taken as UTF-8 (what browsers, curl and requests send), not busboy's Latin-1
        defParamCharset: 'utf8',
      }),
    }),
  ],
  controllers: [UploadsController],
})
export class UploadsModule {}
