import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EngineVideoProbe } from './adapters/ffprobe/engine.video-probe';
import { UploadRecord } from './adapters/typeorm/upload.record';
import { TypeOrmUploadRepository } from './adapters/typeorm/typeorm.upload.repository';
import { UploadsService } from './application/uploads.service';
import { UploadedVideos } from './ports/uploaded-videos';
import { UploadRepository } from './ports/upload.repository';
import { VideoProbe } from './ports/video-probe';

/** Upload records and their service, without HTTP: shared by the uploads API and the jobs module. */
@Module({
  imports: [TypeOrmModule.forFeature([UploadRecord])],
  providers: [UploadsService, { provide: UploadedVideos, useExisting: UploadsService }, { provide: UploadRepository, useClass: TypeOrmUploadRepository }, { provide: VideoProbe, useClass: EngineVideoProbe }],
  exports: [UploadsService, UploadedVideos, VideoProbe],
})
export class UploadsCoreModule {}
