"""JSON Schema from type hints (tool inputs and outputs), and validation against it, via pydantic.

Hosts are the audience of these schemas, and many of them break on `$ref`/`$defs` or show
pydantic's generated titles ("A", "Item") as if they were help text. So every local reference is
inlined (refs.py), auto-generated titles are dropped (generator.py), and only a true cycle (a
recursive type) keeps a minimal `$defs`. inputs.py builds input schemas and validates arguments,
outputs.py builds output schemas and checks structured values, errors.py holds what both report.
Plain signatures (int, str, Optional, Literal, Enum, lists and dicts of them) are served by
plain.py without pydantic; everything else by pydantic_path.py, the only module here that imports
pydantic (on demand). `jsonschema` is imported on demand too, for hand-written schemas only.
"""

from plainmcp.schema.errors import ArgumentError, FieldError, OutputMismatch
from plainmcp.schema.inputs import InputSpec, input_spec, schema_input_spec
from plainmcp.schema.outputs import OutputSpec, output_spec, schema_output_spec
from plainmcp.schema.refs import inline_refs

__all__ = [
    "ArgumentError",
    "FieldError",
    "InputSpec",
    "OutputMismatch",
    "OutputSpec",
    "inline_refs",
    "input_spec",
    "output_spec",
    "schema_input_spec",
    "schema_output_spec",
]
