// 64-bit integer columns without BigInt arithmetic in the hot loops: a BigInt64Array is read (and
// written) through 32-bit views of the same bytes. Exact for |v| < 2^53, which holds for every MT5
// value (seconds, milliseconds, volumes); larger values fall back to BigInt.

/** True on every platform Node runs on in practice (x86-64, arm64); the views assume it. */
export const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const TWO_32 = 4294967296;

/** The low and high 32-bit words of each element: lo[2i] and hi[2i + 1] (little-endian). */
export interface Words64 {
  readonly lo: Uint32Array;
  readonly hi: Int32Array;
  readonly uhi: Uint32Array;
}

export function words64(a: BigInt64Array | BigUint64Array): Words64 {
  const lo = new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
  return { lo, hi: new Int32Array(a.buffer, a.byteOffset, a.length * 2), uhi: lo };
}

/** Seconds since the epoch -> milliseconds, in a new array (Parquet has no second unit). */
export function secondsToMillis(src: BigInt64Array): BigInt64Array {
  const n = src.length;
  const out = new BigInt64Array(n);
  if (!littleEndian) {
    for (let i = 0; i < n; i++) out[i] = src[i]! * 1000n;
    return out;
  }
  const sw = words64(src);
  const olo = new Uint32Array(out.buffer, 0, n * 2);
  const ohi = new Int32Array(out.buffer, 0, n * 2);
  for (let i = 0, j = 0; i < n; i++, j += 2) {
    const hi = sw.hi[j + 1]!;
    if (hi >= -2048 && hi < 2048) {
      // |v| < 2^43 s, so v * 1000 < 2^53: exact in a double.
      const ms = (hi * TWO_32 + sw.lo[j]!) * 1000;
      const h = Math.floor(ms / TWO_32);
      ohi[j + 1] = h;
      olo[j] = ms - h * TWO_32;
    } else {
      out[i] = src[i]! * 1000n;
    }
  }
  return out;
}
