"""transports.stdout in process: what `HeldStdout` keeps, in what order it hands it on, and that
it writes through afterwards (the launch forms: tests/e2e/test_stdout_launch_forms.py)."""

from __future__ import annotations

import io
import logging

import pytest

from plainmcp.transports.stdout import HeldStdout


class Target(io.TextIOWrapper):
    """A text stream over bytes in memory that counts its flushes."""

    def __init__(self) -> None:
        self.raw_bytes = io.BytesIO()
        super().__init__(self.raw_bytes, encoding="utf-8", errors="strict", newline="\n")
        self.flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()

    def fileno(self) -> int:
        return 7

    def written(self) -> bytes:
        super().flush()
        return self.raw_bytes.getvalue()


def test_text_and_bytes_are_held_in_order_until_decided() -> None:
    target = Target()
    held = HeldStdout(target)
    print("one", file=held, flush=True)
    held.buffer.write(b"two\n")
    held.buffer.flush()
    held.write("thr")
    held.write("ee\n")
    held.flush()
    assert (target.written(), target.flushes) == (b"", 0)
    assert held.holding
    held.decide(target)
    assert not held.holding
    assert target.written() == b"one\ntwo\nthree\n"


def test_after_the_decision_writes_go_through_and_a_kept_reference_keeps_working() -> None:
    target = Target()
    held = HeldStdout(target)
    logger = logging.getLogger("tests.transports.test_stdout")
    handler = logging.StreamHandler(held)  # taken while held, as a module-level handler would
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("logged while held")
        held.decide(target)
        logger.warning("logged after")
        print("printed after", file=held)
        held.buffer.write(b"bytes after\n")
        assert target.written() == b"logged while held\nlogged after\nprinted after\nbytes after\n"
    finally:
        logger.removeHandler(handler)


def test_decide_is_once_only() -> None:
    first, second = Target(), Target()
    held = HeldStdout(first)
    held.write("held\n")
    held.decide(first)
    held.decide(second)
    held.write("after\n")
    assert (first.written(), second.written()) == (b"held\nafter\n", b"")


def test_held_bytes_reach_a_target_without_a_buffer_as_text() -> None:
    original, target = Target(), io.StringIO()
    held = HeldStdout(original)
    held.buffer.write("é\n".encode())
    held.write("text\n")
    held.decide(target)
    assert target.getvalue() == "é\ntext\n"


def test_it_stands_for_the_stream_it_holds() -> None:
    target = Target()
    held = HeldStdout(target)
    assert (held.encoding, held.errors, held.fileno(), held.buffer.fileno()) == (
        "utf-8",
        "strict",
        7,
        7,
    )
    assert held.line_buffering is False  # attributes of the stream itself
    assert held.writable() and held.buffer.writable()
    assert held.isatty() is False
    with pytest.raises(TypeError, match="must be str, not bytes"):
        held.write(b"bytes")  # type: ignore[arg-type]


def test_decided_for_itself_it_writes_to_the_stream_it_holds() -> None:
    # claim_stdout() decides for sys.stderr, which a program may have pointed at sys.stdout
    target = Target()
    held = HeldStdout(target)
    held.write("held\n")
    held.decide(held)  # type: ignore[arg-type]
    held.write("after\n")
    assert target.written() == b"held\nafter\n"


NOTE = (
    "plainmcp: more than {0} bytes were written to stdout before this process served stdio or"
    " showed it is no stdio server; they and what follows go to stderr"
    " (plainmcp.transports.stdout)\n"
)


def test_past_its_limit_what_was_held_and_what_follows_goes_to_the_spill_stream() -> None:
    target, spill = Target(), io.StringIO()
    held = HeldStdout(target, limit=10, spill=spill)
    held.write("12345")
    held.buffer.write(b"67890")  # 10: at the limit, still held
    assert (held.holding, spill.getvalue()) == (True, "")
    held.write("x")
    assert not held.holding
    assert spill.getvalue() == NOTE.format(10) + "1234567890x"
    held.write("after\n")
    held.decide(target)  # decided already: run() or release_stdout() change nothing
    assert spill.getvalue() == NOTE.format(10) + "1234567890xafter\n"
    assert target.written() == b""


def test_the_default_limit_is_one_mebibyte() -> None:
    target, spill = Target(), io.StringIO()
    held = HeldStdout(target, spill=spill)
    held.write("a" * (1 << 20))
    assert held.holding
    held.write("b")
    assert spill.getvalue() == NOTE.format(1 << 20) + "a" * (1 << 20) + "b"


def test_past_its_limit_with_stderr_pointed_at_it_it_writes_to_the_stream_it_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = Target()
    held = HeldStdout(target, limit=3)
    monkeypatch.setattr("sys.stderr", held)  # `sys.stderr = sys.stdout`, as some programs do
    held.write("four")
    assert target.written() == (NOTE.format(3) + "four").encode()
