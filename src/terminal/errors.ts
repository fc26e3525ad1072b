/** What went wrong in the terminal, as the HTTP layer needs to know it (mirrors binding/terminal/errors.h). */
export type TerminalErrorKind =
  | 'call_failed'
  | 'invalid_params'
  | 'not_found'
  | 'not_subscribed'
  | 'not_selected'
  | 'unavailable'
  | 'timeout'
  // The local history store (src/store/), which answers for the terminal where it covers a range:
  // a partition that is not what its manifest recorded, where the terminal does not hold it either;
  // too many store reads at once (or one past its deadline).
  | 'store_damaged'
  | 'store_busy';

/** A terminal failure: `code`/`message` as the package's last_error() tuple, `kind` for mapping. */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  constructor(
    readonly kind: TerminalErrorKind,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export function isTerminalError(e: unknown): e is TerminalError {
  return e instanceof TerminalError;
}
