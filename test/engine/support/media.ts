import { join } from 'node:path';

/** The shared test media (see /work/shared/media/README.md), relative to the project root. */
const root = join(__dirname, '..', '..', '..', '..', 'shared', 'media');

export const MEDIA = {
  root,
  portraitPan: join(root, 'portrait-pan.mp4'),
  portraitPanAlpha: join(root, 'portrait-pan.alpha.mkv'),
  carSlide: join(root, 'car-slide.mp4'),
  carSlideAlpha: join(root, 'car-slide.alpha.mkv'),
  walkers: join(root, 'walkers.mp4'),
  portraitJpg: join(root, 'portrait.jpg'),
  astronaut: join(root, 'astronaut.png'),
};
