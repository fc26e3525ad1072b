// Response schemas for OpenAPI, derived from the generated <Record>Columns so that the documented
// fields are exactly those the terminal returns.
import { Type, type TObject, type TSchema } from '@sinclair/typebox';

import { TradeRequestColumns, type FieldKind, type FieldSpec } from '../terminal/records.js';

function fieldSchema(kind: FieldKind): TSchema {
  switch (kind) {
    case 'bool':
      return Type.Boolean();
    case 'int64':
    case 'uint64':
    case 'uint32':
      return Type.Integer();
    case 'float64':
      return Type.Number();
    case 'string':
      return Type.String();
    case 'TradeRequest':
      return recordSchema('TradeRequest', TradeRequestColumns);
  }
}

export function recordSchema(name: string, columns: readonly FieldSpec[]): TObject {
  const properties: Record<string, TSchema> = {};
  for (const [field, kind] of columns) properties[field] = fieldSchema(kind);
  return Type.Object(properties, { title: name, additionalProperties: false });
}
