// Typed terminal errors. `code`/`message` mirror the MetaTrader5 package's last_error() tuple
// (mt5-reference §5.9); `kind` is what the HTTP layer maps to a status (404/400/409/503).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tradeapi {

enum class ErrorKind {
  CallFailed,     // (-1, 'Terminal: Call failed')        -> 502/500-class, mapped by HTTP layer
  InvalidParams,  // (-2, 'Terminal: Invalid params')     -> 400
  NotFound,       // (-4, 'Terminal: Not found')          -> 404 (unknown symbol, no such ticket)
  NotSubscribed,  // (-1, 'Terminal: Call failed') on market_book_get without market_book_add -> 409
  NotSelected,    // (-1, 'Terminal: Call failed') on symbol_info_tick outside Market Watch -> 409
  Unavailable,    // (-10004, 'No IPC connection')        -> 503
  Timeout,        // (-10005, 'IPC timeout')              -> 503
};

inline const char* error_kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::CallFailed: return "call_failed";
    case ErrorKind::InvalidParams: return "invalid_params";
    case ErrorKind::NotFound: return "not_found";
    case ErrorKind::NotSubscribed: return "not_subscribed";
    case ErrorKind::NotSelected: return "not_selected";
    case ErrorKind::Unavailable: return "unavailable";
    case ErrorKind::Timeout: return "timeout";
  }
  return "call_failed";
}

class TerminalError : public std::runtime_error {
 public:
  TerminalError(ErrorKind kind, int64_t code, const std::string& message)
      : std::runtime_error(message), kind_(kind), code_(code) {}
  ErrorKind kind() const { return kind_; }
  int64_t code() const { return code_; }

  static TerminalError invalid_params(const std::string& why = "Terminal: Invalid params") {
    return TerminalError(ErrorKind::InvalidParams, -2, why);
  }
  static TerminalError not_found(const std::string& why = "Terminal: Not found") {
    return TerminalError(ErrorKind::NotFound, -4, why);
  }
  static TerminalError call_failed(const std::string& why = "Terminal: Call failed") {
    return TerminalError(ErrorKind::CallFailed, -1, why);
  }
  static TerminalError not_subscribed(const std::string& why = "Terminal: Call failed") {
    return TerminalError(ErrorKind::NotSubscribed, -1, why);
  }
  // The package's generic refusal (mt5-reference §2.3, §8): the code a client sees is -1, the kind
  // says why, so that the HTTP layer can name the remedy (symbol_select) instead of a 502.
  static TerminalError not_selected(const std::string& why = "Terminal: Call failed") {
    return TerminalError(ErrorKind::NotSelected, -1, why);
  }

 private:
  ErrorKind kind_;
  int64_t code_;
};

}  // namespace tradeapi
