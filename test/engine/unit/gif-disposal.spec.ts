import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GifFormatError, setGifDisposal, setGifFileDisposal, withDisposal } from '../../../src/engine/output/gif-disposal';

/** A hand-built GIF89a: global color table, NETSCAPE loop, a comment, and two frames. */
function buildGif(): { bytes: Buffer; controlOffsets: number[] } {
  const parts: number[] = [];
  const push = (...bytes: number[]) => parts.push(...bytes);
  const controlOffsets: number[] = [];
  push(...Buffer.from('GIF89a'));
  push(2, 0, 2, 0, 0b1000_0000, 0, 0); // 2x2, global color table of 2 entries
  push(0, 0, 0, 255, 255, 255);
  push(0x21, 0xff, 11, ...Buffer.from('NETSCAPE2.0'), 3, 1, 0, 0, 0); // loop forever
  push(0x21, 0xfe, 4, ...Buffer.from('hi!!'), 0); // comment
  for (const localTable of [false, true]) {
    push(0x21, 0xf9, 4);
    controlOffsets.push(parts.length);
    push(0b0000_0101, 4, 0, 0, 0); // disposal 1, transparent flag; delay 4 cs; transparent index 0
    push(0x2c, 0, 0, 0, 0, 2, 0, 2, 0, localTable ? 0b1000_0000 : 0);
    if (localTable) push(10, 20, 30, 40, 50, 60);
    push(2, 3, 0x4c, 0x01, 0x00, 0); // LZW min size 2, one data sub-block of 3 bytes, terminator
  }
  push(0x3b);
  return { bytes: Buffer.from(parts), controlOffsets };
}

describe('GIF disposal patch', () => {
  it('rewrites only the disposal bits of each graphic control extension', () => {
    expect(withDisposal(0b0000_0101, 2)).toBe(0b0000_1001);
    expect(withDisposal(0b1110_0111, 2)).toBe(0b1110_1011);
  });

  it('walks every block and sets disposal 2 on every frame, leaving all other bytes alone', () => {
    const { bytes, controlOffsets } = buildGif();
    const original = Buffer.from(bytes);
    expect(setGifDisposal(bytes)).toBe(2);
    for (let i = 0; i < bytes.length; i++) {
      if (controlOffsets.includes(i)) expect(bytes[i]).toBe(0b0000_1001);
      else expect(bytes[i]).toBe(original[i]);
    }
    expect(setGifDisposal(bytes)).toBe(0); // already patched
  });

  it('patches a file in place', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gif-'));
    try {
      const { bytes, controlOffsets } = buildGif();
      const path = join(dir, 'a.gif');
      await writeFile(path, bytes);
      expect(await setGifFileDisposal(path)).toBe(2);
      const patched = await readFile(path);
      expect(controlOffsets.map((offset) => (patched[offset] >> 2) & 7)).toEqual([2, 2]);
      expect(patched.length).toBe(bytes.length);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects what is not a GIF, and truncated files', () => {
    expect(() => setGifDisposal(Buffer.from('PNG not a gif at all'))).toThrow(GifFormatError);
    const { bytes } = buildGif();
    expect(() => setGifDisposal(bytes.subarray(0, bytes.length - 8))).toThrow(/truncated/);
  });
});
