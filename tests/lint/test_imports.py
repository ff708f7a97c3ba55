"""Reading what an import cost from `python -X importtime`."""

from __future__ import annotations

from plainmcp.lint.imports import START, TOTAL, ImportCost, import_cost

STDERR = f"""\
import time: self [us] | cumulative | imported package
import time:       500 |        500 | site
{START}
import time:       120 |        120 |       _json
import time:       257 |       4525 |   json.decoder
import time:       163 |       4952 | json
import time:      2000 |      90000 | heavy
import time:       900 |        900 | tiny
import time:      1200 |       3000 |   heavy.part
import time:      1000 |       1000 | light
warning: something else on stderr
{TOTAL}123456
"""


def test_the_top_level_imports_after_the_start_costliest_first() -> None:
    assert import_cost(STDERR, count=2) == ImportCost(123456, (("heavy", 90000), ("json", 4952)))
    assert import_cost(STDERR) == ImportCost(
        123456, (("heavy", 90000), ("json", 4952), ("light", 1000))
    )


def test_no_total_means_the_import_did_not_finish() -> None:
    assert import_cost(STDERR.split(TOTAL)[0]) is None
