"""The plain path (schema/plain.py) equals the pydantic path: schemas byte for byte, the same
keyword arguments (values and types), the same errors, over a generated corpus of signatures."""

# ruff: noqa: UP007, UP042, UP045  (the old spellings are part of what is compared)

from __future__ import annotations

import enum
import inspect
import itertools
import json
import random
import subprocess
import sys
from typing import Annotated, Any, Literal, Optional, Union

import pytest

from plainmcp.schema import ArgumentError, OutputMismatch, input_spec, output_spec, plain
from plainmcp.schema.inputs import pydantic_input_spec
from plainmcp.schema.outputs import pydantic_output_spec
from plainmcp.wire import json as wire_json


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.Enum):
    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    ONE = 1
    B = "b"


class Size(enum.IntEnum):
    S = 1
    M = 2


class Mode(enum.StrEnum):
    FAST = "fast"
    SLOW = "slow"


class Side(str, enum.Enum):
    LEFT = "left"
    RIGHT = "right"


SCALARS: list[Any] = [
    int,
    float,
    str,
    bool,
    None,
    Any,
    Color,
    Level,
    Mixed,
    Size,
    Mode,
    Side,
    Literal["x", "y"],
    Literal[1, 2],
    Literal[True],
    Literal["it's", 'q"', "é"],
    Literal["x", 1, False, None],
    Literal[None],
    Literal["only"],
    list,
    dict,
]
UNIONS: list[Any] = [
    int | str,
    Union[str, bool, None],
    float | list[int],
    int | dict[str, str],
    list[str] | str | None,
    bool | int | list[list[int]],
    Optional[dict[str, Any]],
]


def _types() -> list[Any]:
    nested: list[Any] = []
    for base in SCALARS:
        nested += [list[base], dict[str, base]]
        if base is not None and base is not Any:
            nested.append(Optional[base])
    deeper = [list[list[int]], dict[str, list[Color]], list[dict[str, float | None]]]
    deeper += [Optional[list[Size]], list[int | str], dict[str, Literal["a", "b"] | None]]
    described = [Annotated[int, "how many"], Annotated[Color | None, "which", "second"]]
    return SCALARS + UNIONS + nested + deeper + described


TYPES = _types()
VALUES: list[Any] = [
    0,
    1,
    2,
    -5,
    2**64,
    -(2**63) - 1,
    10**30,
    1.0,
    2.5,
    True,
    False,
    None,
    "x",
    "red",
    "fast",
    "b",
    "it's",
    "1",
    "",
    [],
    [1, 2],
    [1, "x"],
    ["red", "blue"],
    [[1], [2, "z"]],
    {},
    {"k": 1},
    {"k": "v", "w": None},
    {"k": [1, "x"], "l": ["red"]},
    float("nan"),
    float("inf"),
    (1, 2),
    Color.RED,
]
DEFAULTS: list[Any] = [None, 3, 1.5, "x", True, [], {}, [1, "a"], {"b": 1, "a": {"d": 2, "c": 3}}]
DEFAULTS += [Color.GREEN, Size.M]


def tool(params: list[tuple[str, Any, Any]]) -> Any:
    """A function with these (name, annotation, default) parameters; inspect.Parameter.empty
    for none."""

    def fn(**kwargs: Any) -> None:
        pass

    fn.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d)
            for name, a, d in params
        ]
    )
    fn.__annotations__ = {name: a for name, a, _ in params if a is not inspect.Parameter.empty}
    return fn


def typed(value: Any) -> Any:
    """A value with every type spelt out, so that 5 and 5.0, or a member and its value, differ."""
    if isinstance(value, list):
        return ["list", [typed(v) for v in value]]
    if isinstance(value, dict):
        return ["dict", [(k, typed(v)) for k, v in value.items()]]
    return [type(value).__qualname__, repr(value)]


def outcome(spec: Any, arguments: Any) -> Any:
    try:
        result = spec.validate(arguments)
    except ArgumentError as exc:
        return ["error", [(e.path, e.message) for e in exc.errors]]
    return ["ok", list(result), typed(result)]


def output_outcome(check: Any, value: Any) -> Any:
    try:
        check(value)
    except OutputMismatch as exc:
        return [(e.path, e.message) for e in exc.errors]
    return "ok"


def same_inputs(params: list[tuple[str, Any, Any]], calls: list[Any], docs: Any = None) -> int:
    fn = tool(params)
    docs = docs or {}
    fast, slow = input_spec(fn, param_docs=docs), pydantic_input_spec(fn, param_docs=docs)
    where = f"{params} {docs}"
    assert json.dumps(fast.schema) == json.dumps(slow.schema), where
    for arguments in calls:
        assert outcome(fast, arguments) == outcome(slow, arguments), f"{where} {arguments!r}"
    return len(calls)


def test_every_corpus_type_takes_the_plain_path() -> None:
    params = [plain.Param(f"p{i}", a, inspect.Parameter.empty) for i, a in enumerate(TYPES)]
    assert plain.plain_fields(params, {}) is not None
    assert all(plain.output_node(a) is not None for a in TYPES)


def test_one_parameter_of_every_type_with_every_value_matches_pydantic() -> None:
    cases = 0
    for annotation in TYPES:
        params = [("a", annotation, inspect.Parameter.empty), ("b", int, 3)]
        calls = [{"a": v} for v in VALUES] + [{"a": v, "b": v} for v in VALUES[:12]]
        calls += [{}, {"b": 1}, {"a": 1, "zz": 2}, {"zz": None}, [1], "text", None, 5]
        cases += same_inputs(params, calls, {"a": "the a"})
    assert cases > 3000


def test_defaults_and_descriptions_match_pydantic() -> None:
    cases = 0
    for annotation, default in itertools.product(TYPES[:40:3], DEFAULTS):
        params = [("n", int, inspect.Parameter.empty), ("a", annotation, default)]
        cases += same_inputs(params, [{"n": 1}, {"n": 1, "a": None}, {"a": 2}])
        cases += same_inputs([("a", annotation, default)], [{}], {"a": "doc"})
    assert cases > 300


def test_many_parameters_at_once_match_pydantic() -> None:
    rng = random.Random(18)
    cases = 0
    for _ in range(150):
        count = rng.randint(2, 5)
        params = []
        for i in range(count):
            default = rng.choice([inspect.Parameter.empty, None, *DEFAULTS[1:5]])
            annotation = rng.choice([*TYPES, inspect.Parameter.empty])
            params.append((f"p{i}", annotation, default))
        calls = []
        for _ in range(12):
            arguments = {name: rng.choice(VALUES) for name, _, _ in params if rng.random() < 0.7}
            if rng.random() < 0.2:
                arguments["extra"] = 1
            calls.append(arguments)
        cases += same_inputs(params, calls, {"p0": "first"} if rng.random() < 0.5 else None)
    assert cases == 1800


def test_outputs_match_pydantic() -> None:
    cases = 0
    for annotation in TYPES:
        if annotation in (None, Any, str, list, dict):
            continue  # unstructured: no output spec on either path
        fast, slow = output_spec(annotation), pydantic_output_spec(annotation)
        assert fast is not None
        assert json.dumps(fast.schema) == json.dumps(slow.schema), annotation
        for value in VALUES:
            assert output_outcome(fast.check, value) == output_outcome(slow.check, value), (
                annotation,
                value,
            )
            if not isinstance(value, float) or value == value:
                data = wire_json.dumps(value) if not isinstance(value, tuple | enum.Enum) else b"1"
                assert output_outcome(fast.check_json, data) == output_outcome(
                    slow.check_json, data
                ), (annotation, value)
            cases += 1
    assert cases > 2000


@pytest.mark.parametrize(
    "annotation",
    [tuple[int, str], set[int], Annotated[int, object()], Literal[1.5], dict[int, str], bytes],
)
def test_what_plain_does_not_know_goes_to_pydantic(annotation: Any) -> None:
    assert plain.node(annotation) is None or plain.output_node(annotation) is None


def test_building_plain_specs_imports_no_pydantic() -> None:
    code = (
        "import sys\n"
        "import plainmcp.schema as schema\n"
        "before = {m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')}\n"
        "def add(a: int, b: float = 1.0, tags: list[str] | None = None) -> dict[str, int]:\n"
        "    return {}\n"
        "spec = schema.input_spec(add)\n"
        "spec.validate({'a': 1, 'tags': ['x']})\n"
        "out = schema.output_spec(dict[str, int])\n"
        "out.check({'a': 1})\n"
        "out.check_json(b'{\"a\": 1}')\n"
        "after = {m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')}\n"
        "print(sorted(after - before))\n"
        "from typing import Annotated\n"
        "import plainmcp.model.pydantic_check\n"
        "def limited(a: int = __import__('pydantic').Field(ge=0)) -> int:\n"
        "    return a\n"
        "schema.input_spec(limited)\n"
        "print('plainmcp.schema.pydantic_path' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\nTrue\n"
