// Query and path parameters: TypeBox schemas (which also feed OpenAPI) plus the one place that
// turns raw strings into typed values. Integer-ness, finiteness and booleans are decided on the
// raw string here, because TypeBox's Convert would accept "1.5" as 1 (stack-notes).
import { CloneType, Type, type TObject, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';

import { constants, parseConstant, type ConstantFamily } from '../terminal/constants.js';
import { BAR_PERIOD_PATTERN, parseBarPeriod } from '../terminal/bar-period.js';
import type { Format } from '../encode/types.js';
import { preview } from './preview.js';
import { received, validationError } from './problem.js';

/** Upper bound on `count` for /rates/* and /ticks/from (documented in OpenAPI). */
export const MAX_COUNT = 1_000_000;

// Schemas whose raw string is parsed by this file rather than checked by TypeBox carry 'x-kind'.
type CustomKind = 'date' | 'constant' | 'barPeriod';

export const Param = {
  symbol: (description = 'Symbol name as the terminal spells it, e.g. EURUSD') =>
    Type.String({ minLength: 1, maxLength: 64, description, examples: ['EURUSD'] }),
  /**
   * Several symbol names, comma-separated (multi-symbol series). At most 2 048 characters, so that
   * the whole URL stays within MAX_URL_BYTES (8 KiB) even percent-encoded (3 bytes a character);
   * a longer list is a 400, and a URL past 8 KiB (many-byte characters) the documented 414.
   */
  symbols: (description = 'Symbol names, comma-separated, e.g. EURUSD,GBPUSD,USDJPY (at most 2048 characters; more symbols: group=)') =>
    Type.String({ minLength: 1, maxLength: 2048, description, examples: ['EURUSD,GBPUSD,USDJPY'] }),
  group: () =>
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: "Symbol filter with '*' wildcards and '!' exclusions, comma-separated, e.g. *USD*,!EUR*",
    }),
  count: (max = MAX_COUNT) => Type.Integer({ minimum: 1, maximum: max, description: `Number of rows, 1 to ${max}` }),
  startPos: () => Type.Integer({ minimum: 0, maximum: MAX_COUNT, description: 'Bar index counted from the present into the past; 0 is the current bar' }),
  ticket: (description: string) => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description }),
  /**
   * A finite number > 0 (or >= `min`), at most `max`: calc inputs are bounded so that what the
   * terminal computes from them (products, and quotients by a price) stays finite.
   */
  positive: (description: string, max: number, min?: number) =>
    min === undefined
      ? Type.Number({ exclusiveMinimum: 0, maximum: max, description: `${description}, greater than 0 and at most ${max}` })
      : Type.Number({ minimum: min, maximum: max, description: `${description}, from ${min} to ${max}` }),
  boolean: (description: string) => Type.Boolean({ description }),
  /** ISO 8601 UTC ending in Z; the handler receives milliseconds since the epoch. */
  date: (description: string): TUnsafe<number> =>
    Type.Unsafe<number>({
      type: 'string',
      format: 'date-time',
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z$',
      examples: ['2024-01-10T00:00:00Z'],
      description,
      'x-kind': 'date',
    }),
  /**
   * A custom bars' period (GET /ticks/bars) as its text; checked by parseBarPeriod, whose message
   * says why a period is refused, and stated in the document as the pattern of every accepted one.
   */
  barPeriod: (description: string) =>
    Type.String({ pattern: BAR_PERIOD_PATTERN, maxLength: 32, description, examples: ['90s', 'ticks:500'], 'x-kind': 'barPeriod' }),
  /**
   * A MetaTrader5 constant by name or integer; the handler receives the integer. `only` narrows the
   * family to the members the operation accepts (calc/profit takes ORDER_TYPE_BUY and _SELL only).
   */
  constant: (family: ConstantFamily, description: string, only?: readonly string[]): TUnsafe<number> => {
    const members = constantMembers(family, only);
    return Type.Unsafe<number>({
      anyOf: [
        { type: 'string', enum: [...members.keys()] },
        { type: 'integer', enum: [...new Set(members.values())] },
      ],
      description: `${description} (${family}_* name or its integer value)`,
      'x-kind': 'constant',
      'x-family': family,
      'x-only': only,
    });
  },
  /**
   * A JSON body member that takes a MetaTrader5 constant by name, as the query does, or any integer
   * from `minimum` to `maximum` (an integer outside the family stays the terminal's to judge, e.g.
   * with a retcode). resolveConstants turns names into their integers before the body is checked;
   * the handler receives the integer.
   */
  bodyConstant: (family: ConstantFamily, description: string, minimum: number, maximum: number) =>
    Type.Union([Type.String({ enum: [...constants(family).keys()] }), Type.Integer({ minimum, maximum })], {
      description: `${description} (${family}_* name or integer, e.g. ${[...constants(family).keys()][0]} or ${[...constants(family).values()][0]})`,
      'x-kind': 'constant',
      'x-family': family,
    }),
  /** Parquet codec of a series; other formats ignore it. Default zstd (level 1), measured best. */
  compression: () =>
    Type.Union(
      (['zstd', 'lz4', 'snappy', 'none'] as const).map((c) => Type.Literal(c)),
      { description: 'Parquet compression of a series (default zstd; lz4 is faster and twice the size, none is largest)' },
    ),
  format: (formats: readonly Format[]) =>
    Type.Union(
      formats.map((f) => Type.Literal(f)),
      { description: 'Response format; wins over the Accept header' },
    ),
};

/**
 * `word` after its indefinite article: "an ORDER_TYPE", "a TIMEFRAME". By its first letter, which
 * is right for the constant family names this is used with (none starts with a vowel letter
 * pronounced as a consonant, like "USER", or the reverse, like "HOUR").
 */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/** The members of a family, or of the named subset of it (an unknown name is a programming error). */
function constantMembers(family: ConstantFamily, only?: readonly string[]): ReadonlyMap<string, number> {
  const all = constants(family);
  if (!only) return all;
  return new Map(
    only.map((name) => {
      const value = all.get(name);
      if (value === undefined) throw new Error(`${name} is not ${withArticle(family)} constant`);
      return [name, value] as const;
    }),
  );
}

/**
 * One character as JSON Schema counts them: a code point, i.e. a surrogate pair or one other UTF-16
 * unit (a lone surrogate included). The alternatives are disjoint, so a string matches in exactly
 * one way: with overlapping ones ("a pair, or any unit") a long non-matching string backtracks
 * exponentially and blocks the event loop.
 */
const CODE_POINT = '(?:[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|[^\\uD800-\\uDBFF])';

/**
 * A copy of `schema` for validation whose string lengths count code points, as JSON Schema (and so
 * the OpenAPI document) does; TypeBox counts UTF-16 units, which refused e.g. a 40-emoji symbol the
 * document allows. minLength/maxLength become an equivalent pattern in the copy only.
 */
export function codePointLengths<T extends TSchema>(schema: T): T {
  const copy = CloneType(schema);
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) return node.forEach(visit);
    const s = node as Record<string, unknown>;
    const lo = s.minLength;
    const hi = s.maxLength;
    if (s.type === 'string' && s.pattern === undefined && (typeof lo === 'number' || typeof hi === 'number')) {
      s.pattern = `^${CODE_POINT}{${typeof lo === 'number' ? lo : 0},${typeof hi === 'number' ? hi : ''}}$`;
      s['x-length'] = { minLength: lo, maxLength: hi }; // for error messages (lengthMessage)
      delete s.minLength;
      delete s.maxLength;
    }
    Object.values(s).forEach(visit);
  };
  visit(copy);
  return copy;
}

/** TypeBox-style message for a string that failed a codePointLengths pattern, else undefined. */
export function lengthMessage(schema: TSchema): string | undefined {
  const length = schema['x-length'] as { minLength?: number; maxLength?: number } | undefined;
  if (!length) return undefined;
  const { minLength: lo, maxLength: hi } = length;
  if (lo !== undefined && hi !== undefined) return `Expected string length from ${lo} to ${hi} characters`;
  return hi !== undefined ? `Expected string length of at most ${hi} characters` : `Expected string length of at least ${lo} characters`;
}

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

/** Milliseconds since the epoch, or undefined unless `raw` is a real ISO 8601 UTC instant ending in Z. */
export function parseIsoUtc(raw: string): number | undefined {
  const m = ISO_UTC.exec(raw);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3)); // sub-millisecond digits are dropped
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear takes the year as given.
  const back = new Date(Date.UTC(2000, 0, 1, h, mi, s, ms));
  back.setUTCFullYear(y, mo - 1, d);
  const time = back.getTime();
  // Date.UTC rolls 2024-02-30 over to March; a round trip catches impossible dates.
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  return time;
}

/** A human phrase for what a schema admits, for 400 details. */
function describe(schema: TSchema): string {
  if (Array.isArray(schema.anyOf) && schema.anyOf.every((s: TSchema) => 'const' in s)) {
    return `one of ${schema.anyOf.map((s: TSchema) => String(s.const)).join(', ')}`;
  }
  const range = (lo: unknown, hi: unknown): string =>
    typeof lo === 'number' && typeof hi === 'number' ? ` from ${lo} to ${hi}` : typeof lo === 'number' ? ` of at least ${lo}` : '';
  switch (schema.type) {
    case 'integer': {
      const max = schema.maximum === Number.MAX_SAFE_INTEGER ? undefined : schema.maximum;
      if (schema.minimum === 1) return max === undefined ? 'a positive integer' : `a positive integer no greater than ${max}`;
      return `an integer${range(schema.minimum, max)}`;
    }
    case 'number':
      if (typeof schema.minimum === 'number' && typeof schema.maximum === 'number') return `a number from ${schema.minimum} to ${schema.maximum}`;
      return (
        (schema.exclusiveMinimum === 0 ? 'a finite number greater than 0' : 'a finite number') +
        (typeof schema.maximum === 'number' ? ` and at most ${schema.maximum}` : '')
      );
    case 'boolean':
      return 'true, false, 1 or 0';
    case 'string':
      return `a string of ${schema.minLength ?? 0} to ${schema.maxLength ?? 'any number of'} characters`;
    default:
      return 'a valid value';
  }
}

/** An optional minus and at most 16 digits (beyond that no integer is exact in a double). */
const INTEGER = /^-?\d{1,16}$/;
/** An optional minus, decimal digits with an optional point, an optional exponent. */
const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

interface FieldParser {
  readonly name: string;
  readonly required: boolean;
  parse(raw: string): unknown;
}

function fieldParser(where: string, name: string, schema: TSchema, required: boolean): FieldParser {
  const label = `${where} parameter '${name}'`;
  const kind = schema['x-kind'] as CustomKind | undefined;
  if (kind === 'date') {
    return {
      name,
      required,
      parse(raw) {
        const ms = parseIsoUtc(raw);
        if (ms === undefined) throw validationError(`${label} must be an ISO 8601 UTC timestamp ending in Z, e.g. 2024-01-10T00:00:00Z; received ${received(raw)}`);
        return ms;
      },
    };
  }
  if (kind === 'barPeriod') {
    return {
      name,
      required,
      parse(raw) {
        const period = parseBarPeriod(raw);
        if (typeof period === 'string') throw validationError(`${label}: ${period}`);
        return raw;
      },
    };
  }
  if (kind === 'constant') {
    const family = schema['x-family'] as ConstantFamily;
    const members = constantMembers(family, schema['x-only'] as readonly string[] | undefined);
    const values = new Set(members.values());
    return {
      name,
      required,
      parse(raw) {
        const value = parseConstant(family, raw);
        if (value === undefined || !values.has(value)) {
          const allowed = [...members.keys()].join(', ');
          throw validationError(`${label} must be ${withArticle(family)} constant name or its integer value (allowed: ${allowed}); received ${received(raw)}`);
        }
        return value;
      },
    };
  }
  const check: TypeCheck<TSchema> = TypeCompiler.Compile(codePointLengths(schema));
  const fail = (raw: string): never => {
    throw validationError(`${label} must be ${describe(schema)}; received ${received(raw)}`);
  };
  // The raw string exactly as sent: no trimming and no plus sign, so that ' 5', '5 ' and '+5' (a
  // '+' in a query string is a space) are refused rather than quietly read as 5, for every numeric,
  // integer and boolean parameter alike (constants follow the same rule in parseConstant).
  const toValue = (raw: string): unknown => {
    switch (schema.type) {
      case 'integer':
        return INTEGER.test(raw) ? Number(raw) : fail(raw);
      case 'number': {
        // Plain decimal notation only: no hex, no Infinity, no empty string (Number('') is 0).
        if (!NUMBER.test(raw)) return fail(raw);
        const n = Number(raw);
        return Number.isFinite(n) ? n : fail(raw);
      }
      case 'boolean': {
        const lower = raw.toLowerCase();
        if (lower === 'true' || lower === '1') return true;
        if (lower === 'false' || lower === '0') return false;
        return fail(raw);
      }
      default:
        return raw;
    }
  };
  return {
    name,
    required,
    parse(raw) {
      const value = toValue(raw);
      if (!check.Check(value)) fail(raw);
      return value;
    },
  };
}

/**
 * A JSON body with the MetaTrader5 constants it names by name (Param.bodyConstant members, at any
 * depth of objects) replaced by their integers, before the body's schema is checked: names are
 * taken in the body wherever the query takes them, and an unknown one gets the query's 400 (the
 * allowed names listed). A member that is neither a name nor an integer in range is a 400 saying
 * what it takes. `path` names the value in details ('' for the body itself). Integers pass as they
 * are, so a body resolved once may be resolved again (a handler called without the dispatcher).
 */
export function resolveConstants(schema: TSchema, value: unknown, path = ''): unknown {
  if (schema['x-kind'] === 'constant' && Array.isArray(schema.anyOf)) return resolveConstant(schema, value, path);
  if (schema.type !== 'object' || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  let out: Record<string, unknown> | undefined;
  for (const [name, sub] of Object.entries(properties)) {
    if (!Object.hasOwn(value, name)) continue;
    const before = (value as Record<string, unknown>)[name];
    const after = resolveConstants(sub, before, path === '' ? name : `${path}.${name}`);
    if (after !== before) (out ??= { ...(value as Record<string, unknown>) })[name] = after;
  }
  return out ?? value;
}

function resolveConstant(schema: TSchema, value: unknown, path: string): number {
  const family = schema['x-family'] as ConstantFamily;
  const label = path === '' ? 'the body' : `body member '${path}'`;
  if (typeof value === 'string') {
    const byName = constants(family).get(value);
    if (byName !== undefined) return byName;
    const allowed = [...constants(family).keys()].join(', ');
    throw validationError(`${label} must be ${withArticle(family)} constant name or its integer value (allowed: ${allowed}); received ${received(value)}`);
  }
  const integer = (schema.anyOf as TSchema[]).find((s) => s.type === 'integer');
  const lo = typeof integer?.minimum === 'number' ? integer.minimum : Number.MIN_SAFE_INTEGER;
  const hi = typeof integer?.maximum === 'number' ? integer.maximum : Number.MAX_SAFE_INTEGER;
  if (typeof value === 'number' && Number.isInteger(value) && value >= lo && value <= hi) return value;
  throw validationError(`${label} must be ${withArticle(family)} constant name or an integer from ${lo} to ${hi}; received ${value === undefined ? 'nothing' : preview(value)}`);
}

/** Parses raw strings against an object schema; compiled once per route. */
export class ParameterParser {
  private readonly fields: FieldParser[];
  private readonly known: ReadonlySet<string>;

  constructor(
    private readonly where: 'query' | 'path',
    schema: TObject,
  ) {
    const required = new Set(schema.required ?? []);
    this.fields = Object.entries(schema.properties).map(([name, s]) => fieldParser(where, name, s, required.has(name)));
    this.known = new Set(this.fields.map((f) => f.name));
  }

  parse(get: (name: string) => readonly string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const field of this.fields) {
      const values = get(field.name);
      if (values.length === 0) {
        if (field.required) throw validationError(`${this.where} parameter '${field.name}' is required`);
        continue;
      }
      if (values.length > 1) throw validationError(`${this.where} parameter '${field.name}' was given ${values.length} times; give it once`);
      out[field.name] = field.parse(values[0] as string);
    }
    return out;
  }

  /** Whether the schema declares this name (unknown query parameters are ignored, as is usual). */
  has(name: string): boolean {
    return this.known.has(name);
  }
}
