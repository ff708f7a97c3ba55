"""pydantic_check answers for pydantic objects, and for everything else, correctly."""

from __future__ import annotations

import subprocess
import sys

from pydantic import BaseModel, Field

from plainmcp.model import pydantic_check
from plainmcp.model.pydantic_check import is_field_info, is_model, is_model_class


class Point(BaseModel):
    x: int


def test_pydantic_objects_are_recognised() -> None:
    assert is_field_info(Field(description="d"))
    assert is_model(Point(x=1))
    assert is_model_class(Point)


def test_other_objects_are_not() -> None:
    assert not is_field_info("text")
    assert not is_model(Point)
    assert not is_model({"x": 1})
    assert not is_model_class(Point(x=1))
    assert not is_model_class(int)


def test_asking_does_not_import_pydantic() -> None:
    # The module file alone, so that plainmcp's package import is not what is under test.
    path = pydantic_check.__file__
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('check', {path!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "print(module.is_field_info(1), module.is_model(1), module.is_model_class(int),"
        " 'pydantic' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "False False False False\n"
