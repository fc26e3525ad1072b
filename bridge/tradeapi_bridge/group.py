"""The package's `group` mask (mt5-reference §2.4), for filters the bridge must apply itself
(the package takes one selector at a time; the Terminal interface combines them). Same choices as
the simulator (binding/sim/group_filter.cpp): comma-separated, trimmed of the same whitespace,
`*` anywhere and nothing else special, case-sensitive, applied in order; a blank group matches
every name."""
import re

# The simulator trims these only (str.strip() would also drop \v, \f and Unicode spaces).
WHITESPACE = " \t\r\n"


def is_blank(group: str) -> bool:
    """A group that selects every name: the op then passes no group to the package at all, whose
    answer to a blank mask is undocumented (found by test/bridge/contract.test.ts)."""
    return not group.strip(WHITESPACE)


def _regex(mask: str):
    return re.compile("^" + ".*".join(re.escape(p) for p in mask.split("*")) + "$", re.S)


def group_match(group: str, name: str) -> bool:
    if is_blank(group):
        return True
    selected = False
    for cond in group.split(","):
        cond = cond.strip(WHITESPACE)
        if not cond:
            continue
        if cond.startswith("!"):
            if selected and _regex(cond[1:].strip(WHITESPACE)).match(name):
                selected = False
        elif not selected and _regex(cond).match(name):
            selected = True
    return selected
