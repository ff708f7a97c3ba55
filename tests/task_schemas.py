"""Task messages the core schemas do not define, validated against the schema that does.

2025-11-25: a tools/call answered with a CreateTaskResult (the core schema has it, but not as
a tools/call result). 2026-07-28: the tasks extension's messages (CreateTaskResult, the
tasks/get, tasks/update and tasks/cancel results, notifications/tasks), checked against the
extension's own schema, tests/schemas/ext-tasks.schema.json: a copy of schema/draft/schema.json
of github.com/modelcontextprotocol/ext-tasks at e4345978be1f602f1fc48d89051e8559dd5302a6
(a spec data file, unchanged).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema.exceptions
import referencing
import referencing.jsonschema

EXT_SCHEMA = Path(__file__).resolve().parent / "schemas" / "ext-tasks.schema.json"
EXT_RESULTS = {
    "tasks/get": "GetTaskResult",
    "tasks/update": "UpdateTaskResult",
    "tasks/cancel": "CancelTaskResult",
}
"""The extension's methods (2026-07-28) and the definition of each one's result."""
EXT_NOTIFICATIONS = {"notifications/tasks": "TaskStatusNotification"}


@functools.cache
def _ext_validator(name: str) -> jsonschema.protocols.Validator:
    schema = json.loads(EXT_SCHEMA.read_text(encoding="utf-8"))
    if name not in schema["$defs"]:
        raise AssertionError(f"the tasks extension's schema has no definition {name!r}")
    resource = referencing.Resource.from_contents(
        schema, default_specification=referencing.jsonschema.DRAFT202012
    )
    registry: referencing.Registry[Any] = referencing.Registry().with_resource(
        schema["$id"], resource
    )
    return jsonschema.Draft202012Validator(
        {"$ref": f"{schema['$id']}#/$defs/{name}"}, registry=registry
    )


def validate_ext(instance: Any, name: str) -> None:
    """`instance` against definition `name` of the tasks extension's schema."""
    errors = list(_ext_validator(name).iter_errors(instance))
    if errors:
        best = jsonschema.exceptions.best_match(errors)
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in best.absolute_path)
        raise AssertionError(
            f"not a valid {name} (tasks extension): at ${where}: {best.message}\n"
            f"  instance: {json.dumps(instance)[:600]}"
        )


def task_result(
    result: Any, revision: str, method: str, core: Callable[[Any, str, str], None]
) -> bool:
    """Validate `result` if it is a task message (True), else leave it to the core (False).
    `core` validates against a core definition: (instance, revision, name)."""
    if not isinstance(result, Mapping):
        return False
    if revision == "2026-07-28":
        if method in EXT_RESULTS:
            validate_ext(result, EXT_RESULTS[method])
            return True
        if method == "tools/call" and result.get("resultType") == "task":
            validate_ext(result, "CreateTaskResult")
            return True
        return False
    core_task = isinstance(result.get("task"), Mapping) and "content" not in result
    if revision == "2025-11-25" and method == "tools/call" and core_task:
        core(result, revision, "CreateTaskResult")
        return True
    return False


def task_notification(message: Mapping[str, Any], revision: str) -> bool:
    """Validate a 2026-07-28 notifications/tasks (True), else leave it to the core."""
    name = EXT_NOTIFICATIONS.get(str(message.get("method")))
    if revision != "2026-07-28" or name is None:
        return False
    validate_ext(message, name)
    return True
