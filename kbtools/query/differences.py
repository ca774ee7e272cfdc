"""A number a question says as a difference from another time, not as a reading
(温度比昨天高5度, 比前天低了3度, 升高5度, ``5 degrees higher than yesterday``, ``rose by 5``,
``up 5 degrees from yesterday``): `kbtools.query.inputs` gives it no input and the answer says
it was not used, as what it is.

Pure.
"""

from __future__ import annotations

import re

# Chinese, right before the number: a comparison (比昨天高, 比前天低了, 比上周多) or a verb of
# change with no 到/至 after it (升高5度, 下降了3度, 降了3度; not 升高到25度, the value reached)
# (比25度高3度, 比设定值25度低2度: what it is compared with may be a value, the reference)
_ZH_BEFORE = re.compile(r"(?:比[^，,。；;！？!?\s]{1,10}?(?:高|低|多|少|热|冷|暖|凉|大|小|升|降|涨)"
                        r"|升高|降低|上升|下降|增加|减少|提高|高出|低出|增高|回升|回落)[了出]?$"
                        r"|(?:升|降|涨|跌|高|低)了$")  # (降了3度, 高了2度)
# English, right before the number (``rose by 5``, ``up 5 degrees``; not ``up to 25``)
_EN_BEFORE = re.compile(r"(?<![a-z])(?:(?:rose|risen|fell|fallen|dropped|climbed|increased|"
                        r"decreased|went up|went down|gone up|gone down)(?: by)?|up|down) $")
# English, right after the number and its unit (``higher than yesterday``, ``up from``,
# ``above yesterday``: not ``above 25``, a bound; but ``3 degrees above 25 c``, a number
# and its unit before, is 3 more than the reference 25, no duration: ``90% over 3 days``)
_EN_AFTER = re.compile(r" ?(?:(?:higher|lower|warmer|colder|cooler|hotter|more|less) than|"
                       r"(?:up|down|higher|lower|warmer|colder|cooler|hotter|more|less) "
                       r"(?:from|on|since|vs\.?|versus)|(?:above|below|over|under)"
                       r"(?= (?:yesterday|last|normal|average|usual|the day before|"
                       r"-?\d+(?:\.\d+)?(?![\d.])(?! ?(?:days?|hours?|hrs?|h|weeks?|months?|"
                       r"years?|minutes?|mins?|seconds?|secs?|s|times|cycles)(?![a-z])))))"
                       r"(?![a-z])(?: [a-z]+)?")

# … and after a number an English change leads, what it is from (``up 5 degrees from yesterday``)
_EN_SINCE = re.compile(r" ?(?:from|since|on|over|than|vs\.?|versus)(?![a-z])(?: [a-z]+)?")


def difference_at(text: str, start: int, after: int) -> tuple[int, int] | None:
    """The span of compacted `text` saying the number from `start` (its unit ending at
    `after`) as a difference (比昨天高5度: from 比; ``5 degrees higher than yesterday``: to
    yesterday), else None. A reference value it is said from (比25度高3度, ``3 degrees above
    25 c``) is in the span or starts right after it (`inputs.read_inputs` claims it too)."""
    before = text[max(0, start - 12):start]
    lead = _ZH_BEFORE.search(before) or _EN_BEFORE.search(before)
    tail = _EN_AFTER.match(text, after) or \
        (_EN_SINCE.match(text, after) if lead is not None and lead.re is _EN_BEFORE else None)
    if lead is None and tail is None:
        return None
    return (start - len(before) + lead.start() if lead else start,
            tail.end() if tail else after)
