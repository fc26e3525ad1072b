// group_match (mt5-reference §2.4). Decisions on the undocumented points: '*' works anywhere in a
// mask (glob), matching is case-sensitive, whitespace around conditions (and after '!') is ignored,
// and empty conditions (",,") are skipped. An empty/blank group matches everything.
#include <string>

#include "market.h"

namespace tradeapi::sim {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string trim(const std::string& s, size_t begin, size_t end) {
  while (begin < end && is_space(s[begin])) ++begin;
  while (end > begin && is_space(s[end - 1])) --end;
  return s.substr(begin, end - begin);
}

// Iterative glob with backtracking to the last '*': O(len(mask) * len(name)) worst case.
bool glob(const std::string& mask, const std::string& name) {
  size_t m = 0, n = 0, star = std::string::npos, star_n = 0;
  while (n < name.size()) {
    if (m < mask.size() && mask[m] == '*') {
      star = m++;
      star_n = n;
    } else if (m < mask.size() && mask[m] == name[n]) {
      ++m;
      ++n;
    } else if (star != std::string::npos) {
      m = star + 1;
      n = ++star_n;
    } else {
      return false;
    }
  }
  while (m < mask.size() && mask[m] == '*') ++m;
  return m == mask.size();
}

}  // namespace

bool group_match(const std::string& group, const std::string& name) {
  if (trim(group, 0, group.size()).empty()) return true;
  bool in = false;  // conditions apply in order, starting from the empty set
  size_t begin = 0;
  while (begin <= group.size()) {
    size_t end = group.find(',', begin);
    if (end == std::string::npos) end = group.size();
    std::string cond = trim(group, begin, end);
    begin = end + 1;
    if (cond.empty()) continue;
    const bool exclude = cond[0] == '!';
    if (exclude) cond = trim(cond, 1, cond.size());
    if (glob(cond, name)) in = !exclude;
  }
  return in;
}

}  // namespace tradeapi::sim
