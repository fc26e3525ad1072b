// Arrow Data over existing typed arrays, without copying them.
import { makeData, type Data, type DataType, type Float64 } from 'apache-arrow';

/**
 * A fixed-width (or bit-packed boolean) column over `values` as they are: the Data's values *are*
 * that array (apache-arrow keeps a typed array of the type's own ArrayType without copying).
 */
export function flatData(type: DataType, length: number, values: ArrayBufferView): Data {
  // makeData's overloads are per concrete type, but every fixed-width type takes the same props and
  // dispatches on the runtime type; one cast here instead of one per call site.
  return makeData({ type: type as Float64, length, nullCount: 0, data: values as Float64Array }) as Data;
}
