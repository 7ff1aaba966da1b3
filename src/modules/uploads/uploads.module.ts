import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { multipartParsing } from '../../common/http/multipart-digest';
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
        ...multipartParsing(config.maxUploadBytes),
      }),
    }),
  ],
  controllers: [UploadsController],
})
export class UploadsModule {}
