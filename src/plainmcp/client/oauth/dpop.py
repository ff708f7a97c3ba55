"""DPoP (RFC 9449; the MCP extension io.modelcontextprotocol/auth/dpop), sans-I/O: the
client's proof-of-possession key (EC P-256), a fresh proof JWT per request (htm, htu without
query or fragment, iat, jti; ath for the token it accompanies; the server's nonce), and the
nonces each server last handed out (RFC 9449 §8, §9)."""

from __future__ import annotations

import base64
import hashlib
import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

NONCE_ERROR = "use_dpop_nonce"


def htu(url: str) -> str:
    """The proof's `htu`: the request URL without its query and fragment (§4.2)."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def ath(access_token: str) -> str:
    """The proof's `ath`: base64url(SHA-256(token)), unpadded (§4.2)."""
    digest = hashlib.sha256(access_token.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class DPoPKey:
    """One client's DPoP key and the nonces its servers gave (by origin). `key`: a P-256
    private key (a new one unless given); `clock` in seconds and `new_id` (the jti) are
    injected in tests."""

    algorithm = "ES256"

    def __init__(
        self,
        key: ec.EllipticCurvePrivateKey | None = None,
        *,
        clock: Callable[[], float] = time.time,
        new_id: Callable[[], str] = lambda: uuid.uuid4().hex,
    ) -> None:
        self._key = key if key is not None else ec.generate_private_key(ec.SECP256R1())
        self.clock = clock
        self.new_id = new_id
        self.jwk: dict[str, Any] = dict(ECAlgorithm.to_jwk(self._key.public_key(), as_dict=True))
        self._nonces: dict[str, str] = {}

    def proof(self, method: str, url: str, access_token: str | None = None) -> str:
        """A fresh proof for one request (with this server's nonce when it gave one)."""
        claims: dict[str, Any] = {
            "jti": self.new_id(),
            "htm": method.upper(),
            "htu": htu(url),
            "iat": int(self.clock()),
        }
        if access_token is not None:
            claims["ath"] = ath(access_token)
        nonce = self._nonces.get(_origin(url))
        if nonce is not None:
            claims["nonce"] = nonce
        headers = {"typ": "dpop+jwt", "jwk": self.jwk}
        return jwt.encode(claims, self._key, algorithm=self.algorithm, headers=headers)

    def learn(self, url: str, nonce: str | None) -> bool:
        """Keep the server's DPoP-Nonce; True when it is new (a retry can use it)."""
        if not nonce or self._nonces.get(_origin(url)) == nonce:
            return False
        self._nonces[_origin(url)] = nonce
        return True
