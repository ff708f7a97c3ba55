"""Signed `requestState` for input-required results (2026-07-28 MRTR), sans-I/O.

A tools/call, prompts/get or resources/read that needs client input is answered with
`{resultType: "input_required", inputRequests, requestState}`. The client retries with a new id,
the same params, `inputResponses` (this round's answers only) and the `requestState` echoed.
plainmcp resumes by re-running the function with every answer so far available, so the state
carries the answers of earlier rounds. Nothing is kept in server memory: any process holding the
same secret can continue a request.

The client controls what it echoes, so the state is protected and bound:

- **Integrity**: HMAC-SHA256 over the exact token text. A changed character, a token signed with
  another secret, or one from another format version fails with `StateError("tampered")`.
- **Expiry**: each token carries `expires_at` (issue time + `ttl`); later it is refused.
- **Request identity**: the method, the target (tool name, prompt name or resource uri), a digest
  of the arguments and the principal the request was authenticated as must all match the retry.

What it does not do, plainly:

- **Single-use is NOT enforced.** A token can be replayed, unchanged, by the same principal for
  the same call with the same arguments until it expires. The spec says single-use must be
  enforced server-side where it is required; a stateless server cannot do that. A server that
  needs it can remember `RequestState.nonce` until `expires_at` (that is server memory).
- **Signed, not encrypted.** The payload is base64url JSON that anyone holding the token can
  read. It holds the client's own earlier answers, which that client already knows, plus the
  method, target, principal and an argument digest. Do not put secrets in it.

Token format: `"v1." + base64url(payload) + "." + base64url(HMAC-SHA256(key, "v1." +
base64url(payload)))`, unpadded, URL-safe. The MAC covers the encoded text rather than the
decoded bytes, and is compared in its encoded form, so no two distinct strings verify as the same
token. The HMAC key is derived from the secret with a fixed label, so a secret also used to sign
something else never yields interchangeable MACs.

Secrets: pass one, or set `PLAINMCP_STATE_SECRET` (at least 32 bytes; e.g. the output of
`python -c "import secrets; print(secrets.token_urlsafe(32))"`). Several server processes behind
one endpoint must share one secret. Without either, a random per-process secret is used and only
this process can continue a request (a retry reaching another process, or this one after a
restart, is refused as tampered), unless the transport knows of the other processes and `adopt`s
a shared one (HTTP with Redis: transports/http/state_secret.py; `plainmcp run --workers`), or
`defer`s to one kept for them (stdio: the user's cache, stdio_cache.py).
"""

from __future__ import annotations

import base64
import binascii
import math
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, NamedTuple

from plainmcp.wire import json
from plainmcp.wire.methods import METHODS

__all__ = [
    "ENV_SECRET",
    "MAX_TOKEN_LENGTH",
    "MIN_SECRET_BYTES",
    "RequestState",
    "StateError",
    "StateSigner",
]

ENV_SECRET = "PLAINMCP_STATE_SECRET"
MIN_SECRET_BYTES = 32
MAX_TOKEN_LENGTH = 1024 * 1024  # characters; longer tokens are refused before any decoding

_PREFIX = "v1."
_KEY_LABEL = b"plainmcp/request-state/v1"
_TOKEN = re.compile(r"v1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})")

_SEAL_PREFIX = "ref1."
_SEALED = re.compile(r"([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})")

Reason = Literal["malformed", "tampered", "expired", "mismatch"]


class StateError(Exception):
    """A requestState that cannot be used. `str()` is a message fit for a JSON-RPC error.

    `reason` is one of "malformed" (not a string, too long, not our shape, undecodable),
    "tampered" (integrity check failed: altered, or signed with another secret), "expired", or
    "mismatch" (issued for another method, target, arguments or principal).
    """

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason: Reason = reason
        self.message = message


class RequestState(NamedTuple):
    """The verified content of a requestState (a NamedTuple, not a dataclass: made at every
    start in a sixth of the time)."""

    method: str  # "tools/call" / "prompts/get" / "resources/read"
    target: str  # tool name / prompt name / resource uri
    arguments_digest: str  # StateSigner.digest(arguments) of the request that issued it
    answers: dict[str, Any]  # input key -> the client's result for it, from earlier rounds
    principal: str | None  # who the request was authenticated as (None on stdio)
    expires_at: float  # clock() time from which the state is refused
    asked: tuple[str, ...] = ()  # the input keys requested alongside this state
    nonce: str = ""  # random, unique per token: a key for servers that enforce single use


def _hmac_sha256(key: bytes, data: bytes) -> bytes:
    import hashlib
    import hmac

    return hmac.new(key, data, hashlib.sha256).digest()


def _same(a: bytes, b: bytes) -> bool:
    """Constant-time equality (hmac.compare_digest), for MACs and digests."""
    import hmac

    return hmac.compare_digest(a, b)


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _canonical(value: Any) -> bytes:
    """Canonical JSON bytes (sorted keys, compact, exact for integers of any size): one encoding
    per value."""
    try:
        return json.dumps_canonical(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not JSON-serializable for a requestState: {exc}") from None


def _checked(secret: object, where: str) -> bytes:
    """The secret as bytes, refused when it is too short to sign with."""
    if isinstance(secret, str):
        secret = secret.encode("utf-8")
    if not isinstance(secret, bytes):
        raise TypeError(f"the requestState secret must be bytes or str, not {type(secret)}")
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(
            f"the requestState secret{where} is {len(secret)} bytes;"
            f" at least {MIN_SECRET_BYTES} are required"
        )
    return secret


def _mismatch(what: str) -> StateError:
    return StateError("mismatch", f"Invalid requestState: it was issued for {what}")


class StateSigner:
    """Issues and verifies requestState tokens with an HMAC secret and a time-to-live.

    `secret`: bytes or str (UTF-8), at least 32 bytes. None takes `PLAINMCP_STATE_SECRET` from the
    environment if set, else a random per-process secret (`ephemeral` is then True): several
    processes serving one endpoint must share one secret, and with a random one only this process
    can continue a request. `ttl`: seconds a token stays valid. `clock`: seconds, `time.time` by
    default (injectable for tests). `max_length`: the longest token issued or accepted.
    """

    __slots__ = ("_clock", "_derived", "_load", "_secret", "_source", "max_length", "ttl")

    def __init__(
        self,
        secret: bytes | str | None = None,
        *,
        ttl: float = 600.0,
        clock: Callable[[], float] = time.time,
        max_length: int = MAX_TOKEN_LENGTH,
    ) -> None:
        if secret is None:
            env = os.environ.get(ENV_SECRET)
            if env is not None:
                secret, source = env, "environment"
            else:
                secret, source = os.urandom(MIN_SECRET_BYTES), "random"  # as secrets does
        else:
            source = "argument"
        secret = _checked(secret, f" (from {ENV_SECRET})" if source == "environment" else "")
        if isinstance(ttl, bool) or not isinstance(ttl, int | float) or not ttl > 0:
            raise ValueError(f"ttl must be a positive number of seconds, not {ttl!r}")
        if not math.isfinite(ttl):
            raise ValueError(f"ttl must be finite, not {ttl!r}")
        self._secret = secret
        self._derived: bytes | None = None
        self._load: Callable[[], tuple[bytes | str, str]] | None = None
        self._source = source
        self._clock = clock
        self.ttl = float(ttl)
        self.max_length = max_length

    def __repr__(self) -> str:
        return f"StateSigner(secret=<hidden, {self._source}>, ttl={self.ttl!r})"

    @property
    def _key(self) -> bytes:
        """The signing key, derived from the secret on first use: a server that never signs
        never imports hmac and hashlib (start-up time for every session)."""
        if self._derived is None:
            load = self._load
            if load is not None:
                self._load = None
                secret, source = load()
                self._secret = _checked(secret, f" (from {source})")
                self._source = source
            self._derived = _hmac_sha256(self._secret, _KEY_LABEL)
        return self._derived

    @property
    def ephemeral(self) -> bool:
        """True when the secret is random to this process: no other process can continue."""
        return self._load is None and self._source == "random"

    def defer(self, load: Callable[[], tuple[bytes | str, str]], source: str) -> None:
        """Sign with the secret `load()` returns (with where it is kept) instead of this
        process's random one, loaded when first needed: a stdio server that never signs never
        reads it (transports/stdio_cache.py keeps it in the user's cache). Before serving."""
        self._load = load
        self._derived = None
        self._source = source

    def adopt(self, secret: bytes | str, source: str) -> None:
        """Sign with `secret` from now on instead of this process's random one: the secret the
        processes serving one endpoint share (`source` says where it is kept, never what it
        is). Before serving: what was signed with the random secret stops verifying."""
        self._secret = _checked(secret, f" (from {source})")
        self._derived = None
        self._load = None
        self._source = source

    @staticmethod
    def digest(arguments: Mapping[str, Any] | None) -> str:
        """Hex SHA-256 of the canonical JSON of the arguments (key order does not matter).

        None and {} have the same digest: both mean "no arguments".
        """
        import hashlib

        return hashlib.sha256(_canonical(dict(arguments or {}))).hexdigest()

    def _mac(self, signed: str) -> str:
        return _b64encode(_hmac_sha256(self._key, signed.encode("ascii")))

    def issue(
        self,
        *,
        method: str,
        target: str,
        arguments: Mapping[str, Any] | None,
        answers: Mapping[str, Any],
        principal: str | None = None,
        asked: Iterable[str] = (),
    ) -> str:
        """An opaque URL-safe token binding these answers to this request, valid for `ttl`.

        `answers` are all answers so far (earlier rounds' and this one's); `asked` the input keys
        requested with this token, so that the retry can ignore responses to keys never asked.
        Raises ValueError when a value is not JSON or the token would exceed `max_length`.
        """
        answers = dict(answers)
        asked = list(asked)
        if not all(isinstance(key, str) for key in answers):
            raise ValueError("requestState answers must be keyed by strings")
        if not all(isinstance(key, str) for key in asked):
            raise ValueError("requestState asked keys must be strings")
        payload = {
            "method": method,
            "target": target,
            "args": self.digest(arguments),
            "answers": answers,
            "principal": principal,
            "exp": self._clock() + self.ttl,
            "asked": asked,
            "nonce": _b64encode(os.urandom(12)),  # secrets.token_urlsafe(12), as it is written
        }
        signed = _PREFIX + _b64encode(_canonical(payload))
        token = f"{signed}.{self._mac(signed)}"
        if len(token) > self.max_length:
            raise ValueError(
                f"the requestState would be {len(token)} characters;"
                f" at most {self.max_length} are accepted"
            )
        return token

    def verify(
        self,
        token: object,
        *,
        method: str,
        target: str,
        arguments: Mapping[str, Any] | None,
        principal: str | None = None,
    ) -> RequestState:
        """The state a token carries, if it is intact, unexpired and issued for this request.

        Checked in this order: shape and size (malformed), MAC (tampered), payload (malformed),
        expiry (expired), then method, target, arguments and principal (mismatch).
        """
        if not isinstance(token, str):
            raise StateError("malformed", "Invalid requestState: it must be a string")
        if len(token) > self.max_length:
            raise StateError(
                "malformed",
                f"Invalid requestState: longer than {self.max_length} characters",
            )
        match = _TOKEN.fullmatch(token)
        if match is None:
            raise StateError("malformed", "Invalid requestState: not a requestState of this server")
        body, mac = match.groups()
        try:
            raw = _b64decode(body)
        except (binascii.Error, ValueError):
            raise StateError("malformed", "Invalid requestState: not valid base64url") from None
        signed = token[: len(_PREFIX) + len(body)]
        if not _same(self._mac(signed).encode(), mac.encode()):
            raise StateError(
                "tampered",
                "Invalid requestState: integrity check failed"
                " (altered, or signed with another server secret)",
            )
        state = self._decode(raw)
        if self._clock() >= state.expires_at:
            raise StateError(
                "expired",
                "Expired requestState: send the request again without requestState"
                " and inputResponses to start over",
            )
        if state.method != method:
            raise _mismatch("another method")
        if state.target != target:
            named = METHODS.get(method)
            kind = named.target.kind if named is not None and named.target is not None else None
            raise _mismatch(f"another {kind or 'target'}")
        if not _same(state.arguments_digest.encode(), self.digest(arguments).encode()):
            raise _mismatch("other arguments")
        if state.principal != principal:
            raise _mismatch("another principal")
        return state

    def seal(self, payload: Mapping[str, Any]) -> str:
        """A short signed token carrying `payload` (JSON), for references handed to the model
        (the continuation's refs): base64url JSON, ".", a 128-bit MAC under its own label, so it
        never verifies as a requestState nor the other way round. No expiry: what it points to
        expires in the blob store."""
        body = _b64encode(_canonical(dict(payload)))
        return f"{body}.{self._seal_mac(body)}"

    def unseal(self, token: object) -> dict[str, Any] | None:
        """The payload of a token `seal` issued with this secret; None for anything else."""
        if not isinstance(token, str) or len(token) > self.max_length:
            return None
        match = _SEALED.fullmatch(token)
        if match is None:
            return None
        body, mac = match.groups()
        if not _same(self._seal_mac(body).encode(), mac.encode()):
            return None
        try:
            data = json.loads(_b64decode(body))
        except (binascii.Error, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def fingerprint(self, purpose: str, text: str) -> str:
        """A 128-bit MAC of `text` for `purpose` (URL-safe, 22 characters): names a value, such
        as a principal in a stored payload's header, without holding it in the clear; its own
        label per purpose, so it never verifies as a seal or a requestState."""
        signed = f"fingerprint/{purpose}\0{text}".encode()
        return _b64encode(_hmac_sha256(self._key, signed)[:16])

    def _seal_mac(self, body: str) -> str:
        signed = (_SEAL_PREFIX + body).encode("ascii")
        return _b64encode(_hmac_sha256(self._key, signed)[:16])

    @staticmethod
    def _decode(raw: bytes) -> RequestState:
        bad = StateError("malformed", "Invalid requestState: the payload does not decode")
        try:
            data = json.loads(raw)
        except ValueError:
            raise bad from None
        if not isinstance(data, dict):
            raise bad
        method, target, args = data.get("method"), data.get("target"), data.get("args")
        answers, principal, exp = data.get("answers"), data.get("principal"), data.get("exp")
        asked, nonce = data.get("asked"), data.get("nonce")
        if not (
            isinstance(method, str)
            and isinstance(target, str)
            and isinstance(args, str)
            and isinstance(answers, dict)
            and (principal is None or isinstance(principal, str))
            and isinstance(exp, int | float)
            and not isinstance(exp, bool)
            and isinstance(asked, list)
            and all(isinstance(key, str) for key in asked)
            and isinstance(nonce, str)
        ):
            raise bad
        return RequestState(
            method=method,
            target=target,
            arguments_digest=args,
            answers=answers,
            principal=principal,
            expires_at=float(exp),
            asked=tuple(asked),
            nonce=nonce,
        )
