"""Signed requestState for input-required results (wire.request_state)."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from plainmcp.wire.request_state import (
    ENV_SECRET,
    MAX_TOKEN_LENGTH,
    RequestState,
    StateError,
    StateSigner,
)

SECRET = b"k" * 32
OTHER_SECRET = b"o" * 32
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

MALFORMED_SHAPE = "Invalid requestState: not a requestState of this server"
TAMPERED = (
    "Invalid requestState: integrity check failed (altered, or signed with another server secret)"
)
EXPIRED = (
    "Expired requestState: send the request again without requestState"
    " and inputResponses to start over"
)

ARGS = {"city": "Paris", "days": 3, "opts": {"unit": "C", "hourly": True}}
ANSWERS = {"github_login": {"action": "accept", "content": {"name": "octocat"}}}


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def signer(clock: Clock | None = None, secret: bytes | str = SECRET, **kw: Any) -> StateSigner:
    return StateSigner(secret, clock=clock or Clock(), **kw)


def issue(s: StateSigner, **overrides: Any) -> str:
    kw: dict[str, Any] = {
        "method": "tools/call",
        "target": "get_weather",
        "arguments": ARGS,
        "answers": ANSWERS,
        "principal": "alice",
    }
    kw.update(overrides)
    return s.issue(**kw)


def verify(s: StateSigner, token: object, **overrides: Any) -> RequestState:
    kw: dict[str, Any] = {
        "method": "tools/call",
        "target": "get_weather",
        "arguments": ARGS,
        "principal": "alice",
    }
    kw.update(overrides)
    return s.verify(token, **kw)


def refusal(s: StateSigner, token: object, **overrides: Any) -> tuple[str, str]:
    with pytest.raises(StateError) as info:
        verify(s, token, **overrides)
    return info.value.reason, str(info.value)


def flip(token: str, index: int) -> str:
    """The token with one base64url character replaced by another base64url character."""
    old = token[index]
    new = ALPHABET[(ALPHABET.index(old) + 1) % len(ALPHABET)]
    return token[:index] + new + token[index + 1 :]


# --- round trip ---------------------------------------------------------------------------------


def test_round_trip() -> None:
    clock = Clock()
    s = signer(clock, ttl=60)
    token = issue(s, asked=["capital_of_france"])
    state = verify(s, token)
    assert state == RequestState(
        method="tools/call",
        target="get_weather",
        arguments_digest=StateSigner.digest(ARGS),
        answers=ANSWERS,
        principal="alice",
        expires_at=clock.now + 60,
        asked=("capital_of_france",),
        nonce=state.nonce,
    )
    assert state.nonce


def test_token_is_opaque_url_safe_and_versioned() -> None:
    token = issue(signer())
    prefix, body, mac = token.split(".")
    assert prefix == "v1"
    assert set(body + mac) <= set(ALPHABET)
    assert len(mac) == 43  # 32 bytes, unpadded


def test_each_token_is_unique() -> None:
    s = signer()
    first, second = issue(s), issue(s)
    assert first != second
    assert verify(s, first).nonce != verify(s, second).nonce


def test_round_trip_big_ints_unicode_nested() -> None:
    answers = {
        "big": {"n": 2**200, "neg": -(2**100), "u64": 2**64 - 1, "f": 0.1},
        "text": {"content": {"name": "日本語 ✓ 😀", "empty": "", "nul": "\x00"}},
        "nested": {"a": [1, [2, [3, {"b": None, "c": False}]]], "z": {"y": {"x": []}}},
        "samp": {"role": "assistant", "content": {"type": "text", "text": "Paris"}},
    }
    args = {"n": 2**70, "s": "é"}
    s = signer()
    token = issue(s, answers=answers, arguments=args, principal=None)
    state = verify(s, token, arguments={"s": "é", "n": 2**70}, principal=None)
    assert state.answers == answers
    assert state.answers["big"]["n"] == 2**200
    assert type(state.answers["big"]["n"]) is int


def test_an_answer_no_json_text_holds_is_refused_at_issue() -> None:
    """A lone surrogate cannot come from the wire (the parser answers it by id), and no valid
    UTF-8 holds one: a state carrying it is refused when issued, not signed unreadable."""
    with pytest.raises(ValueError) as info:
        issue(signer(), answers={"k": "\ud800"}, arguments={}, principal=None)
    assert str(info.value) == (
        "not JSON-serializable for a requestState:"
        " a string holds a lone surrogate, which is not a Unicode character"
    )


def test_answers_may_be_empty_and_principal_none() -> None:
    s = signer()
    token = s.issue(method="prompts/get", target="greet", arguments=None, answers={})
    state = s.verify(token, method="prompts/get", target="greet", arguments=None)
    assert state.answers == {}
    assert state.principal is None
    assert state.asked == ()


def test_resources_read_binds_the_uri() -> None:
    s = signer()
    token = s.issue(method="resources/read", target="file:///a.txt", arguments=None, answers={})
    s.verify(token, method="resources/read", target="file:///a.txt", arguments=None)
    with pytest.raises(StateError) as info:
        s.verify(token, method="resources/read", target="file:///b.txt", arguments=None)
    assert info.value.reason == "mismatch"
    assert str(info.value) == "Invalid requestState: it was issued for another resource"


# --- digest -------------------------------------------------------------------------------------


def test_digest_ignores_key_order_at_every_depth() -> None:
    a = {"x": 1, "y": {"p": 1, "q": [1, {"m": 1, "n": 2}]}}
    b = {"y": {"q": [1, {"n": 2, "m": 1}], "p": 1}, "x": 1}
    assert StateSigner.digest(a) == StateSigner.digest(b)
    assert len(StateSigner.digest(a)) == 64
    int(StateSigner.digest(a), 16)


def test_digest_distinguishes_values_and_treats_none_as_empty() -> None:
    assert StateSigner.digest({"a": 1}) != StateSigner.digest({"a": 2})
    assert StateSigner.digest({"a": 1}) != StateSigner.digest({"a": "1"})
    assert StateSigner.digest({"a": [1, 2]}) != StateSigner.digest({"a": [2, 1]})
    assert StateSigner.digest({"n": 2**70}) != StateSigner.digest({"n": 2**70 + 1})
    assert StateSigner.digest(None) == StateSigner.digest({})


# --- malformed ----------------------------------------------------------------------------------


@pytest.mark.parametrize("token", [None, 42, b"v1.abc.def", ["v1"], {"state": "x"}])
def test_not_a_string_is_malformed(token: object) -> None:
    assert refusal(signer(), token) == ("malformed", "Invalid requestState: it must be a string")


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "hello",
        "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0",  # the spec example's unsigned state
        "v1.",
        "v1..",
        "v2.eyJhIjoxfQ." + "A" * 43,
        "v1.eyJhIjoxfQ==." + "A" * 43,  # padding is not part of the format
        "v1.eyJhIjoxfQ." + "A" * 42,
        "v1.eyJhIjoxfQ." + "A" * 44,
        "v1.eyJh!IjoxfQ." + "A" * 43,
        " v1.eyJhIjoxfQ." + "A" * 43,
        "v1.eyJhIjoxfQ." + "A" * 43 + "\n",
        "v1.é." + "A" * 43,
    ],
)
def test_garbage_is_malformed(garbage: str) -> None:
    assert refusal(signer(), garbage) == ("malformed", MALFORMED_SHAPE)


@pytest.mark.parametrize("keep", [0, 1, 3, 10, -1, -2, -43, -44])
def test_truncated_is_malformed(keep: int) -> None:
    s = signer()
    token = issue(s)
    assert refusal(s, token[:keep]) == ("malformed", MALFORMED_SHAPE)


def test_bad_base64_length_is_malformed() -> None:
    # one base64 character alone encodes no whole byte
    assert refusal(signer(), "v1.AAAAA." + "A" * 43) == (
        "malformed",
        "Invalid requestState: not valid base64url",
    )


def test_too_long_is_malformed_before_decoding() -> None:
    s = signer()
    too_long = "v1." + "A" * MAX_TOKEN_LENGTH + "." + "A" * 43
    assert refusal(s, too_long) == (
        "malformed",
        f"Invalid requestState: longer than {MAX_TOKEN_LENGTH} characters",
    )
    assert refusal(s, "x" * (MAX_TOKEN_LENGTH + 1))[0] == "malformed"


def test_max_length_bounds_issue_and_verify() -> None:
    s = signer(max_length=600)
    with pytest.raises(ValueError, match="at most 600 are accepted"):
        issue(s, answers={"k": "x" * 1000})
    token = issue(s)
    assert len(token) <= 600
    assert refusal(signer(max_length=len(token) - 1), token) == (
        "malformed",
        f"Invalid requestState: longer than {len(token) - 1} characters",
    )


def sign_raw(s: StateSigner, payload: bytes) -> str:
    signed = "v1." + base64.urlsafe_b64encode(payload).rstrip(b"=").decode()
    return f"{signed}.{s._mac(signed)}"


@pytest.mark.parametrize(
    "payload",
    [
        b"not json",
        b"[1, 2]",
        b'{"method": "tools/call"}',
        b"\xff\xfe",
        json.dumps(
            {
                "method": "tools/call",
                "target": "t",
                "args": StateSigner.digest(None),
                "answers": [],
                "principal": None,
                "exp": 1e12,
                "asked": [],
                "nonce": "n",
            }
        ).encode(),
        json.dumps(
            {
                "method": "tools/call",
                "target": "t",
                "args": StateSigner.digest(None),
                "answers": {},
                "principal": None,
                "exp": True,
                "asked": [],
                "nonce": "n",
            }
        ).encode(),
    ],
)
def test_signed_but_undecodable_payload_is_malformed(payload: bytes) -> None:
    s = signer()
    assert refusal(s, sign_raw(s, payload), target="t", arguments=None, principal=None) == (
        "malformed",
        "Invalid requestState: the payload does not decode",
    )


def test_sign_raw_produces_what_issue_produces() -> None:
    s = signer()
    token = issue(s)
    body = token.split(".")[1]
    raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    assert sign_raw(s, raw) == token


# --- tampered -----------------------------------------------------------------------------------


def test_every_single_character_flip_of_payload_or_mac_is_tampered() -> None:
    s = signer()
    token = issue(s)
    first_mac = token.rindex(".") + 1
    for index in [*range(3, first_mac - 1), *range(first_mac, len(token))]:
        assert refusal(s, flip(token, index)) == ("tampered", TAMPERED), index


def test_flip_of_last_payload_and_mac_characters_is_tampered() -> None:
    # The last base64 character carries unused bits; the MAC covers the text, not the bytes.
    s = signer()
    token = issue(s)
    mac_start = token.rindex(".") + 1
    for index in (mac_start - 2, len(token) - 1):
        for replacement in ALPHABET:
            if replacement != token[index]:
                altered = token[:index] + replacement + token[index + 1 :]
                assert refusal(s, altered)[0] == "tampered"


def test_forged_payload_with_copied_mac_is_tampered() -> None:
    s = signer()
    token = issue(s, principal="mallory")
    body = token.split(".")[1]
    data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    data["principal"] = "alice"
    data["answers"] = {"approve": {"action": "accept"}}
    forged_body = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    forged = f"v1.{forged_body}.{token.split('.')[2]}"
    assert refusal(s, forged) == ("tampered", TAMPERED)


def test_swapped_mac_from_another_token_is_tampered() -> None:
    s = signer()
    a, b = issue(s), issue(s, target="other")
    assert refusal(s, a.rsplit(".", 1)[0] + "." + b.rsplit(".", 1)[1]) == ("tampered", TAMPERED)


# --- expired ------------------------------------------------------------------------------------


def test_expiry() -> None:
    clock = Clock()
    s = signer(clock, ttl=30)
    token = issue(s)
    clock.now += 29.999
    assert verify(s, token).expires_at == clock.now + 0.001
    clock.now += 0.001
    assert refusal(s, token) == ("expired", EXPIRED)
    clock.now += 10_000
    assert refusal(s, token) == ("expired", EXPIRED)


def test_expired_is_reported_before_mismatch() -> None:
    clock = Clock()
    s = signer(clock)
    token = issue(s)
    clock.now += 601
    assert refusal(s, token, target="other") == ("expired", EXPIRED)


# --- mismatch -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"method": "prompts/get"}, "Invalid requestState: it was issued for another method"),
        ({"target": "delete_repo"}, "Invalid requestState: it was issued for another tool"),
        (
            {"arguments": {**ARGS, "days": 4}},
            "Invalid requestState: it was issued for other arguments",
        ),
        (
            {"arguments": {"city": "Paris"}},
            "Invalid requestState: it was issued for other arguments",
        ),
        ({"arguments": None}, "Invalid requestState: it was issued for other arguments"),
        ({"principal": "mallory"}, "Invalid requestState: it was issued for another principal"),
        ({"principal": None}, "Invalid requestState: it was issued for another principal"),
    ],
)
def test_mismatch(overrides: dict[str, Any], message: str) -> None:
    s = signer()
    assert refusal(s, issue(s), **overrides) == ("mismatch", message)


def test_prompt_target_mismatch_names_the_prompt() -> None:
    s = signer()
    token = s.issue(method="prompts/get", target="greet", arguments={"n": "x"}, answers={})
    with pytest.raises(StateError) as info:
        s.verify(token, method="prompts/get", target="farewell", arguments={"n": "x"})
    assert (info.value.reason, str(info.value)) == (
        "mismatch",
        "Invalid requestState: it was issued for another prompt",
    )


def test_argument_key_order_does_not_matter() -> None:
    s = signer()
    token = issue(s)
    reordered = {"opts": {"hourly": True, "unit": "C"}, "days": 3, "city": "Paris"}
    assert list(reordered) != list(ARGS)
    assert verify(s, token, arguments=reordered).answers == ANSWERS


def test_stdio_principal_none_refuses_an_authenticated_one() -> None:
    s = signer()
    token = issue(s, principal=None)
    verify(s, token, principal=None)
    assert refusal(s, token, principal="alice")[0] == "mismatch"


# --- secrets ------------------------------------------------------------------------------------


def test_two_signers_with_one_secret_interoperate() -> None:
    clock = Clock()
    one = StateSigner(SECRET, clock=clock)
    two = StateSigner(SECRET.decode(), clock=clock, ttl=5)  # str and bytes: the same secret
    assert verify(two, issue(one)).answers == ANSWERS
    assert verify(one, issue(two)).answers == ANSWERS


def test_different_secrets_do_not_interoperate() -> None:
    assert refusal(signer(secret=OTHER_SECRET), issue(signer())) == ("tampered", TAMPERED)


def test_env_var_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_SECRET, SECRET.decode())
    from_env = StateSigner(clock=Clock())
    assert not from_env.ephemeral
    assert verify(signer(), issue(from_env)).answers == ANSWERS
    assert verify(from_env, issue(signer())).answers == ANSWERS


def test_short_env_var_secret_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_SECRET, "short")
    with pytest.raises(ValueError, match=f"secret \\(from {ENV_SECRET}\\) is 5 bytes"):
        StateSigner()


def test_random_secret_when_none_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_SECRET, raising=False)
    clock = Clock()
    one, two = StateSigner(clock=clock), StateSigner(clock=clock)
    assert one.ephemeral and two.ephemeral
    assert verify(one, issue(one)).answers == ANSWERS
    assert refusal(two, issue(one)) == ("tampered", TAMPERED)


def test_a_random_secret_gives_way_to_an_adopted_shared_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ENV_SECRET, raising=False)
    clock = Clock()
    one, two = StateSigner(clock=clock), StateSigner(clock=clock)
    before = issue(one)
    one.adopt(SECRET, "Redis key plainmcp:state-secret")
    two.adopt(SECRET.decode(), "Redis key plainmcp:state-secret")
    assert not one.ephemeral and not two.ephemeral
    assert verify(two, issue(one)).answers == ANSWERS
    assert two.unseal(one.seal({"k": "key", "o": 3})) == {"k": "key", "o": 3}
    assert refusal(one, before) == ("tampered", TAMPERED)  # the random secret's token
    assert repr(one) == "StateSigner(secret=<hidden, Redis key plainmcp:state-secret>, ttl=600.0)"
    with pytest.raises(ValueError) as refused:
        one.adopt("short", "Redis key k")
    assert str(refused.value) == (
        "the requestState secret (from Redis key k) is 5 bytes; at least 32 are required"
    )
    assert verify(two, issue(one)).answers == ANSWERS  # a refused secret changes nothing


@pytest.mark.parametrize("secret", [b"", b"x" * 31, "y" * 31, "é" * 15])
def test_short_secret_refused(secret: bytes | str) -> None:
    with pytest.raises(ValueError, match="at least 32 are required"):
        StateSigner(secret)


@pytest.mark.parametrize(
    ("secret", "short"),
    [(b"x" * 32, b"x" * 31), ("é" * 16, "é" * 15 + "x")],  # UTF-8: "é" is 2 bytes
)
def test_secret_of_32_bytes_accepted(secret: bytes | str, short: bytes | str) -> None:
    """32 bytes is the least that signs; one byte fewer is refused, saying how many it had."""
    s = signer(secret=secret)
    assert verify(s, issue(s)).answers == ANSWERS
    assert refusal(signer(secret=OTHER_SECRET), issue(s)) == ("tampered", TAMPERED)
    with pytest.raises(ValueError) as refused:
        StateSigner(short)
    assert str(refused.value) == "the requestState secret is 31 bytes; at least 32 are required"


def test_secret_of_wrong_type_refused() -> None:
    with pytest.raises(TypeError):
        StateSigner(12345678901234567890123456789012345)  # type: ignore[arg-type]


@pytest.mark.parametrize("ttl", [0, -1, float("nan"), float("inf"), True])
def test_bad_ttl_refused(ttl: float) -> None:
    with pytest.raises(ValueError, match="ttl"):
        StateSigner(SECRET, ttl=ttl)


def test_repr_hides_the_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "s3cr3t-" + "z" * 40
    s = StateSigner(secret, ttl=60)
    assert repr(s) == "StateSigner(secret=<hidden, argument>, ttl=60.0)"
    assert secret not in repr(s) and "zzzz" not in repr(s)
    monkeypatch.setenv(ENV_SECRET, secret)
    assert repr(StateSigner()) == "StateSigner(secret=<hidden, environment>, ttl=600.0)"
    monkeypatch.delenv(ENV_SECRET)
    assert repr(StateSigner()) == "StateSigner(secret=<hidden, random>, ttl=600.0)"
    assert not hasattr(s, "__dict__")  # no stray attribute holds the raw secret
    assert secret.encode() not in s._key


# --- issue input --------------------------------------------------------------------------------


def test_issue_refuses_non_json_answers() -> None:
    s = signer()
    with pytest.raises(ValueError, match="not JSON-serializable"):
        issue(s, answers={"k": object()})
    with pytest.raises(ValueError, match="keyed by strings"):
        issue(s, answers={1: "x"})


def test_the_payload_is_readable_but_not_secret() -> None:
    """Signed, not encrypted: the client that gave the answers can read them back."""
    token = issue(signer())
    body = token.split(".")[1]
    data = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert data["answers"] == ANSWERS
    assert SECRET.decode() not in json.dumps(data)


# --- sealed refs (the continuation's) ----------------------------------------------------------


def test_a_sealed_payload_opens_with_the_same_secret_only() -> None:
    signer = StateSigner(SECRET)
    token = signer.seal({"k": "key", "o": 12})
    assert signer.unseal(token) == {"k": "key", "o": 12}
    assert StateSigner(SECRET).unseal(token) == {"k": "key", "o": 12}  # another process
    assert StateSigner(b"o" * 32).unseal(token) is None
    mac = token.split(".")[1]
    forged = base64.urlsafe_b64encode(b'{"k":"key","o":0}').rstrip(b"=").decode()
    for bad in (f"{forged}.{mac}", token[:-1] + ("A" if token[-1] != "A" else "B"), "x", 5, None):
        assert signer.unseal(bad) is None


def test_a_sealed_ref_is_never_a_request_state_nor_the_other_way_round() -> None:
    signer = StateSigner(SECRET)
    state = signer.issue(method="tools/call", target="t", arguments={}, answers={})
    assert signer.unseal(state) is None
    with pytest.raises(StateError) as refused:
        signer.verify(signer.seal({"k": "key"}), method="tools/call", target="t", arguments={})
    assert refused.value.reason == "malformed"
