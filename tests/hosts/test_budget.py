"""What one host can take (hosts.budget): the server's limits lowered to a margin of the host's,
counted in the host's unit, the structured value in the text's budget."""

from __future__ import annotations

from plainmcp import PayloadLimits
from plainmcp.hosts import budget
from plainmcp.hosts.profiles import CLAUDE_CODE, CODEX_CLI, GEMINI_CLI, GENERIC, PYDANTIC_AI
from plainmcp.model.truncate import PLAIN, Counting


def test_the_room_is_ninety_percent_of_the_hosts_limit() -> None:
    assert budget.room(CODEX_CLI) == 10_767
    assert budget.room(CLAUDE_CODE) == 45_000
    assert budget.room(GEMINI_CLI) == 36_000
    assert budget.room(PYDANTIC_AI) is None
    assert budget.room(GENERIC) is None


def test_the_servers_limits_are_lowered_to_the_room_and_never_raised_or_turned_on() -> None:
    limits = PayloadLimits()
    assert budget.limits_for(limits, CODEX_CLI) == PayloadLimits(
        text_block=10_767, text_result=10_767, structured=10_767
    )
    assert budget.limits_for(limits, CLAUDE_CODE) == limits
    # A limit the server turned off stays off.
    unbounded = PayloadLimits(text_block=None, text_result=50_000, structured=None)
    assert budget.limits_for(unbounded, GEMINI_CLI) == PayloadLimits(
        text_block=None, text_result=36_000, structured=None
    )
    assert budget.limits_for(limits, PYDANTIC_AI) == limits


def test_a_host_with_a_limit_counts_in_its_unit_with_the_value_in_the_text() -> None:
    assert budget.counting(CODEX_CLI) == Counting("bytes", shared=True)
    assert budget.counting(GEMINI_CLI) == Counting("UTF-16 units", shared=True)
    assert budget.counting(CLAUDE_CODE) == Counting("characters", shared=True)
    assert budget.counting(PYDANTIC_AI) is PLAIN
    assert budget.counting(GENERIC) is PLAIN
