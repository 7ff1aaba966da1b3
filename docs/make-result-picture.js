/**
 * Makes docs/result.png: a frame of the input beside the same frame of a real Backdrop output
 * (transparent WebM) composited over a checkerboard, so the transparency shows.
 *
 *   node docs/make-result-picture.js <input.mp4> <output.webm> [seconds] [docs/result.png]
 *
 * The output here came from `backdrop remove ../shared/media/portrait-pan.mp4 -o out.webm --model human --preview 1`.
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const sharp = require('sharp');
const ffmpeg = require('@ffmpeg-installer/ffmpeg').path;
const ffprobe = require('@ffprobe-installer/ffprobe').path;

const [input, output, seconds = '0.5', target = path.join(__dirname, 'result.png')] = process.argv.slice(2);
const SQUARE = 16;

function frame(file, decoder) {
  const args = ['-v', 'error', ...decoder, '-ss', seconds, '-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'];
  return execFileSync(ffmpeg, args, { maxBuffer: 256 * 1024 * 1024 });
}

function checkerboard(width, height) {
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const shade = (Math.floor(x / SQUARE) + Math.floor(y / SQUARE)) % 2 ? 204 : 255;
      pixels.fill(shade, (y * width + x) * 4, (y * width + x) * 4 + 3);
      pixels[(y * width + x) * 4 + 3] = 255;
    }
  }
  return pixels;
}

async function main() {
  const size = execFileSync(ffprobe, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', output], { encoding: 'utf8' });
  const [width, height] = size.trim().split(',').map(Number);
  const before = frame(input, []);
  const after = frame(output, ['-c:v', 'libvpx-vp9']); // VP9 alpha decodes only with libvpx
  const raw = { raw: { width, height, channels: 4 } };
  const composited = await sharp(checkerboard(width, height), raw).composite([{ input: after, ...raw }]).raw().toBuffer();
  const gap = 8;
  await sharp({ create: { width: width * 2 + gap, height, channels: 4, background: '#ffffff' } })
    .composite([
      { input: before, ...raw, left: 0, top: 0 },
      { input: composited, ...raw, left: width + gap, top: 0 },
    ])
    .png()
    .toFile(target);
  process.stdout.write(`${target}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
