"""The package's `group` mask (mt5-reference §2.4), for filters the bridge must apply itself
(the package takes one selector at a time; the Terminal interface combines them). Same choices as
the simulator: comma-separated, trimmed, `*` anywhere, case-sensitive, applied in order."""
import re


def _regex(mask: str):
    return re.compile("^" + ".*".join(re.escape(p) for p in mask.split("*")) + "$", re.S)


def group_match(group: str, name: str) -> bool:
    selected = False
    for cond in group.split(","):
        cond = cond.strip()
        if not cond:
            continue
        if cond.startswith("!"):
            if selected and _regex(cond[1:].strip()).match(name):
                selected = False
        elif not selected and _regex(cond).match(name):
            selected = True
    return selected
