import { PassThrough, Writable } from 'node:stream';
import { FrameReader } from '../../../src/engine/pipeline/frame-reader';
import { matteBytes } from '../../../src/engine/pipeline/matte';
import { PipeWriter } from '../../../src/engine/pipeline/pipe-writer';
import { ENCODE_BEHIND_BYTES, mattesBehindEncoder } from '../../../src/engine/pipeline/stream-mattes';

describe('FrameReader', () => {
  it('cuts arbitrary chunks into whole frames', async () => {
    const stream = new PassThrough();
    const reader = new FrameReader(stream, 4);
    stream.write(Buffer.from([1, 2, 3]));
    stream.write(Buffer.from([4, 5, 6, 7, 8, 9]));
    stream.end(Buffer.from([10, 11, 12]));
    expect([...(await reader.next())!]).toEqual([1, 2, 3, 4]);
    expect([...(await reader.next())!]).toEqual([5, 6, 7, 8]);
    expect([...(await reader.next())!]).toEqual([9, 10, 11, 12]);
    expect(await reader.next()).toBeUndefined();
  });

  it('pauses the source once it holds the maximum of frames, and resumes as they are taken', async () => {
    const stream = new PassThrough();
    const reader = new FrameReader(stream, 10, 2);
    stream.write(Buffer.alloc(25));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.isPaused()).toBe(true);
    await reader.next();
    expect(stream.isPaused()).toBe(false);
  });

  it('fails when the stream ends inside a frame', async () => {
    const stream = new PassThrough();
    const reader = new FrameReader(stream, 4);
    stream.end(Buffer.from([1, 2, 3, 4, 5]));
    await reader.next();
    await expect(reader.next()).rejects.toThrow(/inside a frame/);
  });
});

describe('PipeWriter', () => {
  it('waits for drain when the pipe is full', async () => {
    const stream = new PassThrough({ highWaterMark: 4 });
    const writer = new PipeWriter(stream);
    await writer.write(Buffer.alloc(2));
    let drained = false;
    const full = writer.write(Buffer.alloc(8)).then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    stream.read();
    await full;
    expect(drained).toBe(true);
  });

  it('lets a few writes wait in the buffer before it applies backpressure', async () => {
    const stream = new PassThrough({ highWaterMark: 4 });
    const writer = new PipeWriter(stream, 16);
    await writer.write(Buffer.alloc(8));
    await writer.write(Buffer.alloc(8));
    let drained = false;
    const third = writer.write(Buffer.alloc(8)).then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    stream.resume();
    await third;
  });

  it('hands the pipe one write at a time, so the producer goes on as soon as the backlog fits again', async () => {
    // a pipe that joins buffered writes into one (as a socket does) and completes them when told
    const calls: { chunks: number; done: () => void }[] = [];
    const stream = new Writable({
      highWaterMark: 1,
      write: (_chunk, _encoding, done) => calls.push({ chunks: 1, done }),
      writev: (chunks, done) => calls.push({ chunks: chunks.length, done }),
    });
    const tick = () => new Promise((resolve) => setImmediate(resolve));
    const writer = new PipeWriter(stream, 16);
    await writer.write(Buffer.alloc(8));
    await writer.write(Buffer.alloc(8));
    let resumed = false;
    const third = writer.write(Buffer.alloc(8)).then(() => (resumed = true));
    await tick();
    expect(resumed).toBe(false);
    calls.shift()!.done(); // the reader takes one write: 16 bytes wait, within the budget
    await tick();
    expect(resumed).toBe(true);
    expect(calls.map((call) => call.chunks)).toEqual([1]);
    while (calls.length) {
      calls.shift()!.done();
      await tick();
    }
    await third;
  });

  it('rejects a write once the reader has gone', async () => {
    const stream = new PassThrough({ highWaterMark: 4 });
    const writer = new PipeWriter(stream);
    const pending = writer.write(Buffer.alloc(8));
    stream.destroy(new Error('EPIPE'));
    await expect(pending).rejects.toThrow('EPIPE');
    await expect(writer.write(Buffer.alloc(1))).rejects.toThrow('EPIPE');
  });
});

describe('matteBytes', () => {
  it('copies mattes of the pipe size', () => {
    const data = new Uint8Array([1, 2, 3, 4]);
    const bytes = matteBytes({ width: 2, height: 2, data }, { width: 2, height: 2 });
    data[0] = 9;
    expect([...bytes]).toEqual([1, 2, 3, 4]);
  });

  it('resamples a matte whose size changed', () => {
    const bytes = matteBytes({ width: 2, height: 1, data: new Uint8Array([0, 255]) }, { width: 4, height: 2 });
    expect([...bytes]).toEqual([0, 0, 255, 255, 0, 0, 255, 255]);
  });

  it('refuses a matte whose data does not match its size', () => {
    expect(() => matteBytes({ width: 2, height: 2, data: new Uint8Array(3) }, { width: 2, height: 2 })).toThrow();
  });
});

describe('mattes waiting for the encoder', () => {
  it('lets small mattes run ahead as far as 1 MB holds, counting the foreground colour beside them', () => {
    expect(ENCODE_BEHIND_BYTES).toBe(2 ** 20);
    expect(mattesBehindEncoder({ width: 320, height: 180 }, false)).toBe(18); // light's: 57.6 KB each
    expect(mattesBehindEncoder({ width: 320, height: 180 }, true)).toBe(4); // 57.6 KB of alpha + 172.8 KB of colour
    expect(mattesBehindEncoder({ width: 640, height: 360 }, false) * 640 * 360).toBeLessThanOrEqual(ENCODE_BEHIND_BYTES);
  });

  it('keeps room for three mattes however large they are', () => {
    expect(mattesBehindEncoder({ width: 3840, height: 2160 }, true)).toBe(3);
    const width = 512;
    const height = ENCODE_BEHIND_BYTES / 4 / width; // four of them fill the budget exactly
    expect(mattesBehindEncoder({ width, height }, false)).toBe(4);
    expect(mattesBehindEncoder({ width, height: height + 1 }, false)).toBe(3);
  });
});
