// The addon's Parquet reader (binding/napi/parquet_reader_js.cpp, binding/parquet/parquet_reader.h):
// reads exactly what the native writer (parquet-native.ts) writes — flat REQUIRED INT32 / INT64 /
// DOUBLE columns, data pages V1, zstd / lz4_raw / none, PLAIN, DELTA_BINARY_PACKED,
// BYTE_STREAM_SPLIT, RLE_DICTIONARY — and decodes row groups on the libuv thread pool into typed
// arrays. Anything else is refused (ERR_PARQUET_UNSUPPORTED) so that the caller can use
// parquet-wasm instead; damage is ERR_PARQUET_CORRUPT, among it a page whose bytes do not match the
// CRC its header carries (the native writer puts one on every page): "page CRC mismatch in column X".

/** The typed arrays a column decodes to: its physical type with its logical type's signedness. */
export type NativeDecodedColumn = BigInt64Array | BigUint64Array | Float64Array | Int32Array | Uint32Array;
export type NativeDecodedArrayName = 'BigInt64Array' | 'BigUint64Array' | 'Float64Array' | 'Int32Array' | 'Uint32Array';

export interface NativeRowGroupInfo {
  readonly rows: number;
  /** The row group's time_msc bounds (column chunk statistics), when the file has that column and wrote them. */
  readonly minTimeMsc?: number;
  readonly maxTimeMsc?: number;
}

export interface NativeDecodeOptions {
  /** Columns to decode (default: all). */
  readonly columns?: readonly string[];
  /** Signed INT64 columns to return divided by 1000 (truncating): the store's `time`, ms on disk, seconds in chunks. */
  readonly msToSeconds?: readonly string[];
}

/** The addon's ParquetReader over one file's bytes (which it keeps referenced; do not modify them). */
export interface NativeParquetReader {
  readonly rowGroups: readonly NativeRowGroupInfo[];
  readonly columns: readonly { readonly name: string; readonly array: NativeDecodedArrayName }[];
  readonly numRows: number;
  readonly createdBy: string;
  /**
   * The footer's key-value metadata (FileMetaData.key_value_metadata), keys in file order; an empty
   * object when the file has none. Frozen, without a prototype. Files with more than 64 pairs, a key
   * or value over 4096 bytes or not UTF-8, or a key twice are refused by the constructor
   * (ERR_PARQUET_UNSUPPORTED); a pair without its key is ERR_PARQUET_CORRUPT.
   */
  readonly metadata: Readonly<Record<string, string>>;
  /** One row group's columns, each rowGroups[index].rows long, decoded on the thread pool. */
  decodeRowGroup(index: number, options?: NativeDecodeOptions): Promise<Record<string, NativeDecodedColumn>>;
}

export interface NativeParquetReaderAddon {
  /** Parses the footer; throws an Error whose `code` is ERR_PARQUET_UNSUPPORTED or ERR_PARQUET_CORRUPT. */
  ParquetReader: new (bytes: Uint8Array) => NativeParquetReader;
}

let loading: Promise<NativeParquetReaderAddon | null> | undefined;

/** The addon's reader, or null when the addon cannot be loaded or predates it (parquet-wasm is used then). */
export function loadNativeParquetReader(): Promise<NativeParquetReaderAddon | null> {
  return (loading ??= import('../terminal/native.js').then(
    (m) => {
      const addon = m.addon as unknown as Partial<NativeParquetReaderAddon>;
      return typeof addon.ParquetReader === 'function' ? (addon as NativeParquetReaderAddon) : null;
    },
    () => null,
  ));
}
