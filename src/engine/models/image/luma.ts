/** BT.601 luma, 0..255, of the packed RGB24 pixel at byte offset `i` (integer weights summing to 256) */
export function lumaByteAt(rgb: Uint8Array, i: number): number {
  return (77 * rgb[i] + 150 * rgb[i + 1] + 29 * rgb[i + 2]) >> 8;
}
