/**
 * Named colours judged in CIELAB (D65, sRGB input): lightness L*, chroma C* = |(a*, b*)| and hue
 * angle h = atan2(b*, a*). Low chroma is achromatic (black, grey, white by lightness); otherwise
 * the hue angle picks the region, with lightness splitting red from pink and orange from brown.
 * The hue regions follow where sRGB's named colours fall in CIELAB (red ~40°, orange ~60°,
 * yellow ~100°, green ~135°, cyan ~195°, blue ~305°, magenta ~330°), halfway between neighbours.
 */
export const COLOUR_NAMES = ['red', 'orange', 'yellow', 'green', 'blue', 'purple', 'pink', 'brown', 'black', 'grey', 'white'] as const;
export type ColourName = (typeof COLOUR_NAMES)[number];

/** below this chroma a colour is achromatic (a grey cast, not a hue) */
const ACHROMATIC_CHROMA = 12;
/** below this lightness any weakly coloured pixel reads as black (dark clothing in shadow) */
const BLACK_LIGHTNESS = 22;
const BLACK_CHROMA = 25;
/** hue boundaries in degrees: [from, name] in increasing order, wrapping at 360 */
const HUE_REGIONS: readonly [number, ColourName][] = [
  [0, 'red'],
  [50, 'orange'],
  [75, 'yellow'],
  [110, 'green'],
  [200, 'blue'],
  [315, 'purple'],
  [345, 'red'],
];

export interface Lab {
  l: number;
  a: number;
  b: number;
}

function linear(channel: number): number {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

const LINEAR = Float64Array.from({ length: 256 }, (_, i) => linear(i));
const WHITE = { x: 0.95047, y: 1, z: 1.08883 };

function labF(t: number): number {
  return t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116;
}

export function rgbToLab(r: number, g: number, b: number): Lab {
  const lr = LINEAR[r];
  const lg = LINEAR[g];
  const lb = LINEAR[b];
  const fx = labF((0.4124564 * lr + 0.3575761 * lg + 0.1804375 * lb) / WHITE.x);
  const fy = labF(0.2126729 * lr + 0.7151522 * lg + 0.072175 * lb);
  const fz = labF((0.0193339 * lr + 0.119192 * lg + 0.9503041 * lb) / WHITE.z);
  return { l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz) };
}

/** the inverse of rgbToLab, each channel clamped to 0..255 (out-of-gamut colours are clipped) */
export function labToRgb({ l, a, b }: Lab): [number, number, number] {
  const fy = (l + 16) / 116;
  const inverse = (f: number) => (f ** 3 > 216 / 24389 ? f ** 3 : (116 * f - 16) / (24389 / 27));
  const x = WHITE.x * inverse(fy + a / 500);
  const y = inverse(fy);
  const z = WHITE.z * inverse(fy - b / 200);
  const gamma = (v: number) => {
    const c = v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055;
    return Math.round(Math.min(1, Math.max(0, c)) * 255);
  };
  return [gamma(3.2404542 * x - 1.5371385 * y - 0.4985314 * z), gamma(-0.969266 * x + 1.8760108 * y + 0.041556 * z), gamma(0.0556434 * x - 0.2040259 * y + 1.0572252 * z)];
}

export function nameLab({ l, a, b }: Lab): ColourName {
  const chroma = Math.hypot(a, b);
  if (chroma < ACHROMATIC_CHROMA || (l < BLACK_LIGHTNESS && chroma < BLACK_CHROMA)) return l < 30 ? 'black' : l > 80 ? 'white' : 'grey';
  const hue = (Math.atan2(b, a) * 180) / Math.PI + 360;
  const angle = hue % 360;
  let name: ColourName = 'red';
  for (const [from, region] of HUE_REGIONS) if (angle >= from) name = region;
  if ((name === 'red' || name === 'purple') && l > 70) return 'pink';
  if ((name === 'orange' || name === 'yellow') && l < 45) return 'brown';
  return name;
}

export function nameRgb(r: number, g: number, b: number): ColourName {
  return nameLab(rgbToLab(r, g, b));
}

/** colour name index of every 15-bit RGB (5 bits a channel): the per-pixel name is a table look-up */
const NAME_TABLE = (() => {
  const table = new Uint8Array(1 << 15);
  for (let i = 0; i < table.length; i++) {
    const expand = (v: number) => (v << 3) | (v >> 2);
    table[i] = COLOUR_NAMES.indexOf(nameRgb(expand(i >> 10), expand((i >> 5) & 31), expand(i & 31)));
  }
  return table;
})();

/** the colour name index (into COLOUR_NAMES) of an RGB pixel, via a 15-bit table */
export function colourIndex(r: number, g: number, b: number): number {
  return NAME_TABLE[((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3)];
}
