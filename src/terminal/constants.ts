// The MetaTrader5 constants, from the one table in binding/terminal/constants.def (exported by the
// addon). Validation, name<->integer parsing and the OpenAPI enums all derive from here.
import { addon } from './native.js';

export type ConstantFamily =
  | 'TIMEFRAME' | 'COPY_TICKS' | 'TICK_FLAG' | 'ORDER_TYPE' | 'ORDER_STATE' | 'ORDER_FILLING'
  | 'ORDER_TIME' | 'ORDER_REASON' | 'POSITION_TYPE' | 'POSITION_REASON' | 'TRADE_ACTION' | 'DEAL_TYPE'
  | 'DEAL_ENTRY' | 'DEAL_REASON' | 'SYMBOL_CALC_MODE' | 'SYMBOL_TRADE_MODE' | 'SYMBOL_TRADE_EXECUTION'
  | 'SYMBOL_CHART_MODE' | 'SYMBOL_SWAP_MODE' | 'DAY_OF_WEEK' | 'SYMBOL_ORDERS' | 'SYMBOL_OPTION_RIGHT'
  | 'SYMBOL_OPTION_MODE' | 'BOOK_TYPE' | 'ACCOUNT_TRADE_MODE' | 'ACCOUNT_STOPOUT_MODE'
  | 'ACCOUNT_MARGIN_MODE' | 'TRADE_RETCODE' | 'RES';

const table = new Map<string, ReadonlyMap<string, number>>(
  Object.entries(addon.constants).map(([family, members]) => [family, new Map(Object.entries(members))]),
);

/** NAME -> value of one family, in table order. */
export function constants(family: ConstantFamily): ReadonlyMap<string, number> {
  const members = table.get(family);
  if (!members) throw new Error(`no constant family ${family}`);
  return members;
}

/** Every constant of every family, flat: NAME -> value. */
export function allConstants(): ReadonlyMap<string, number> {
  const flat = new Map<string, number>();
  for (const members of table.values()) for (const [name, value] of members) flat.set(name, value);
  return flat;
}

/**
 * Parses a constant given by name (`TIMEFRAME_H1`) or by integer (`16385`, `-1`). Returns
 * undefined unless the result is a member of the family, so callers can list the allowed names.
 * Exact text only, like every other parameter: no surrounding whitespace, no plus sign.
 */
export function parseConstant(family: ConstantFamily, raw: string): number | undefined {
  const members = constants(family);
  const byName = members.get(raw);
  if (byName !== undefined) return byName;
  if (!/^-?\d{1,16}$/.test(raw)) return undefined;
  const value = Number(raw);
  for (const v of members.values()) if (v === value) return value;
  return undefined;
}

/** The name of a value in a family (first match), e.g. 16385 -> 'TIMEFRAME_H1'. */
export function constantName(family: ConstantFamily, value: number): string | undefined {
  for (const [name, v] of constants(family)) if (v === value) return name;
  return undefined;
}
