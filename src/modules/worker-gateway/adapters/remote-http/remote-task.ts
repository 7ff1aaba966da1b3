import { ObjectStorage } from '../../../storage/ports/object-storage';
import { WorkerTask } from '../../ports/worker-gateway';
import { RemoteTaskInput } from '../../../../common/worker-protocol/runpod-protocol';

/**
 * The task as a remote worker receives it: storage keys become signed URLs (GET for the input and the
 * background image, PUT for the output) valid for `ttlSeconds`; no storage credential leaves the API.
 */
export async function remoteTaskInput(task: WorkerTask, storage: ObjectStorage, ttlSeconds: number): Promise<RemoteTaskInput> {
  return {
    job_id: task.jobId,
    input_url: await storage.signedDownloadUrl(task.inputKey, ttlSeconds),
    background_image_url: task.backgroundImageKey ? await storage.signedDownloadUrl(task.backgroundImageKey, ttlSeconds) : null,
    output_upload_url: await storage.signedUploadUrl(task.outputKey, ttlSeconds),
    settings: task.settings,
    max_duration_seconds: task.maxDurationSeconds,
    media_limits: task.mediaLimits && {
      max_video_width: task.mediaLimits.maxVideoWidth,
      max_video_height: task.mediaLimits.maxVideoHeight,
      max_video_pixels: task.mediaLimits.maxVideoPixels,
      max_video_fps: task.mediaLimits.maxFrameRate,
      max_image_pixels: task.mediaLimits.maxImagePixels,
    },
    ...(task.segment && { segment: { start_seconds: task.segment.startSeconds, end_seconds: task.segment.endSeconds, preroll_seconds: task.segment.prerollSeconds } }),
  };
}
