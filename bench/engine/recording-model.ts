import { closeSync, openSync, writeSync } from 'node:fs';
import { Matte, SegmentationModel, SegmentationSession } from '../../src/engine/types';

export interface MatteRecording {
  path: string;
  width: number;
  height: number;
  frames: number;
  /** milliseconds from each segment() call to its matte (frames in flight overlap) */
  segmentMs: number;
}

/**
 * Wraps a model so that its session also appends every matte, raw gray, to a file: the floor
 * "encoder alone" then encodes exactly the alpha the engine encoded. Everything else the engine
 * reads from a session passes through.
 */
export function recordingModel(model: SegmentationModel, path: string): { model: SegmentationModel; recording: MatteRecording } {
  const recording: MatteRecording = { path, width: 0, height: 0, frames: 0, segmentMs: 0 };
  const wrapped: SegmentationModel = {
    name: model.name,
    mayHandOver: model.mayHandOver,
    async createSession(options): Promise<SegmentationSession> {
      const session = await model.createSession(options);
      const fd = openSync(path, 'w');
      return {
        inputWidth: session.inputWidth,
        inputHeight: session.inputHeight,
        matteSize: session.matteSize,
        predictsForeground: session.predictsForeground,
        framesInFlight: session.framesInFlight,
        get notes() {
          return session.notes;
        },
        surveyFrame: session.surveyFrame?.bind(session),
        finishSurvey: session.finishSurvey?.bind(session),
        handOverAtEnd: session.handOverAtEnd?.bind(session),
        get keepsVideo() {
          return session.keepsVideo;
        },
        async segment(frame): Promise<Matte> {
          const started = performance.now();
          const matte = await session.segment(frame);
          recording.segmentMs += performance.now() - started;
          if (recording.frames === 0) Object.assign(recording, { width: matte.width, height: matte.height });
          if (matte.width !== recording.width || matte.height !== recording.height) throw new Error('matte size changed mid-clip');
          writeSync(fd, matte.data);
          recording.frames += 1;
          return matte;
        },
        async close() {
          closeSync(fd);
          await session.close();
        },
      };
    },
  };
  return { model: wrapped, recording };
}
