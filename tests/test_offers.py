"""offers.Offers: a component handed an identity and what is registered; what each revision,
session and request is offered, and its caches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from plainmcp import Server
from plainmcp.offers import Offers, Registered
from plainmcp.wire.revisions import REVISIONS


@dataclass
class Me:
    name: str = "me"
    version: str = "1"
    title: str | None = "Me"
    description: str | None = None
    website_url: str | None = None
    icons: tuple[Any, ...] | None = None


def offers(resources: bool, prompts: bool, templates: bool, me: Me | None = None) -> Offers:
    registered: Registered = (resources, prompts, templates)
    identity = me or Me()
    return Offers(lambda: identity, lambda: registered)


def test_tools_alone_are_offered_logging_and_tools() -> None:
    assert offers(False, False, False).capabilities(REVISIONS["2025-11-25"]) == {
        "logging": {},
        "tools": {"listChanged": True},
    }


def test_everything_registered_is_offered() -> None:
    assert offers(True, True, True).capabilities(REVISIONS["2025-06-18"]) == {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
        "prompts": {"listChanged": True},
        "completions": {},
    }


@pytest.mark.parametrize(("prompts", "templates"), [(True, False), (False, True)])
def test_2024_11_05_serves_completions_it_cannot_announce(prompts: bool, templates: bool) -> None:
    made = offers(templates, prompts, templates)
    rev = REVISIONS["2024-11-05"]
    assert "completions" not in made.capabilities(rev)
    assert "completions" in made.features(rev)


@pytest.mark.parametrize("version", list(REVISIONS))
def test_the_features_are_the_capabilities_elsewhere(version: str) -> None:
    rev = REVISIONS[version]
    extras = []
    for registered in [(False, False, False), (True, True, True), (True, False, True)]:
        made = offers(*registered)
        extras.append(made.features(rev) - set(made.capabilities(rev)))
    if version == "2024-11-05":
        assert extras == [set(), {"completions"}, {"completions"}]
    else:
        assert extras == [set(), set(), set()]


def test_the_features_follow_what_is_registered() -> None:
    registered: list[Registered] = [(False, False, False)]
    me = Me()
    made = Offers(lambda: me, lambda: registered[0])
    rev = REVISIONS["2026-07-28"]
    assert made.features(rev) == {"logging", "tools"}
    registered[0] = (False, True, False)
    assert made.features(rev) == {"logging", "tools", "prompts", "completions"}


def test_server_info_follows_an_identity_changed_later() -> None:
    me = Me()
    made = offers(False, False, False, me)
    rev = REVISIONS["2025-11-25"]
    first = made.server_info(rev)
    assert first == {"name": "me", "version": "1", "title": "Me"}
    assert made.server_info(rev) is first  # cached
    me.version = "2"
    assert made.server_info(rev) == {"name": "me", "version": "2", "title": "Me"}
    assert offers(False, False, False, me).server_info(REVISIONS["2024-11-05"]) == {
        "name": "me",
        "version": "2",
    }


def test_a_server_offers_what_it_registered() -> None:
    app = Server("s", "1.0.0")
    rev = REVISIONS["2024-11-05"]
    assert app.offers.features(rev) == {"logging", "tools", "resources"}  # offloads by default

    @app.prompt
    def greet() -> str:
        return "hi"

    assert app.offers.features(rev) == {
        "logging",
        "tools",
        "resources",
        "prompts",
        "completions",
    }
    assert app.offers.capabilities(rev) == {
        "logging": {},
        "tools": {"listChanged": True},
        "resources": {"subscribe": True, "listChanged": True},
        "prompts": {"listChanged": True},
    }
