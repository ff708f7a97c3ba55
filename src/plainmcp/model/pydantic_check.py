"""Is this a pydantic object? Answered without importing pydantic.

Until pydantic is imported nothing can be a pydantic object, so asking through `sys.modules`
keeps pydantic (and its compiled core) out of a server whose signatures are plain types.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo


def is_field_info(value: Any) -> TypeGuard[FieldInfo]:
    """A `pydantic.Field(...)` (as a default or in `Annotated[...]`)."""
    fields = sys.modules.get("pydantic.fields")
    return fields is not None and isinstance(value, fields.FieldInfo)


def is_model(value: Any) -> TypeGuard[BaseModel]:
    """An instance of a `pydantic.BaseModel` subclass."""
    main = sys.modules.get("pydantic.main")
    return main is not None and isinstance(value, main.BaseModel)


def is_model_class(value: Any) -> TypeGuard[type[BaseModel]]:
    """A `pydantic.BaseModel` subclass."""
    main = sys.modules.get("pydantic.main")
    return main is not None and isinstance(value, type) and issubclass(value, main.BaseModel)
