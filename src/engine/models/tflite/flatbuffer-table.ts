import { ByteBuffer } from 'flatbuffers';

/**
 * A read-only view of one FlatBuffers table: just enough accessors to walk the TFLite schema by
 * field number (the schema's field order), without generated code.
 */
export class FlatTable {
  constructor(
    readonly bb: ByteBuffer,
    readonly position: number,
  ) {}

  static root(bytes: Uint8Array): FlatTable {
    const bb = new ByteBuffer(bytes);
    return new FlatTable(bb, bb.readInt32(bb.position()) + bb.position());
  }

  /** byte offset of field `index` relative to the table, 0 when absent */
  private offsetOf(index: number): number {
    return this.bb.__offset(this.position, 4 + 2 * index);
  }

  has(index: number): boolean {
    return this.offsetOf(index) !== 0;
  }

  int8(index: number, fallback = 0): number {
    const o = this.offsetOf(index);
    return o ? this.bb.readInt8(this.position + o) : fallback;
  }

  uint8(index: number, fallback = 0): number {
    const o = this.offsetOf(index);
    return o ? this.bb.readUint8(this.position + o) : fallback;
  }

  int32(index: number, fallback = 0): number {
    const o = this.offsetOf(index);
    return o ? this.bb.readInt32(this.position + o) : fallback;
  }

  uint32(index: number, fallback = 0): number {
    const o = this.offsetOf(index);
    return o ? this.bb.readUint32(this.position + o) : fallback;
  }

  float32(index: number, fallback = 0): number {
    const o = this.offsetOf(index);
    return o ? this.bb.readFloat32(this.position + o) : fallback;
  }

  bool(index: number, fallback = false): boolean {
    const o = this.offsetOf(index);
    return o ? this.bb.readInt8(this.position + o) !== 0 : fallback;
  }

  string(index: number): string | undefined {
    const o = this.offsetOf(index);
    return o ? (this.bb.__string(this.position + o) as string) : undefined;
  }

  table(index: number): FlatTable | undefined {
    const o = this.offsetOf(index);
    return o ? new FlatTable(this.bb, this.bb.__indirect(this.position + o)) : undefined;
  }

  private vector(index: number): { start: number; length: number } | undefined {
    const o = this.offsetOf(index);
    if (!o) return undefined;
    return { start: this.bb.__vector(this.position + o), length: this.bb.__vector_len(this.position + o) };
  }

  tables(index: number): FlatTable[] {
    const v = this.vector(index);
    if (!v) return [];
    const result: FlatTable[] = [];
    for (let i = 0; i < v.length; i++) result.push(new FlatTable(this.bb, this.bb.__indirect(v.start + 4 * i)));
    return result;
  }

  int32s(index: number): number[] {
    const v = this.vector(index);
    if (!v) return [];
    const result: number[] = [];
    for (let i = 0; i < v.length; i++) result.push(this.bb.readInt32(v.start + 4 * i));
    return result;
  }

  floats(index: number): number[] {
    const v = this.vector(index);
    if (!v) return [];
    const result: number[] = [];
    for (let i = 0; i < v.length; i++) result.push(this.bb.readFloat32(v.start + 4 * i));
    return result;
  }

  /** a [ubyte] vector as a view into the underlying buffer (no copy) */
  bytes(index: number): Uint8Array | undefined {
    const v = this.vector(index);
    if (!v) return undefined;
    const all = this.bb.bytes();
    return all.subarray(v.start, v.start + v.length);
  }
}
