"""Task records: their ids, their plain-data form."""

from __future__ import annotations

import pytest

from plainmcp.tasks import TaskRecord, new_task_id


def test_ids_are_long_random_and_url_safe() -> None:
    ids = {new_task_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 32 and i.replace("-", "").replace("_", "").isalnum() for i in ids)


def test_a_record_with_an_unknown_status_is_refused() -> None:
    data = TaskRecord("t", None, created_at=0, updated_at=0, ttl_ms=1, poll_ms=1).to_dict()
    data["status"] = "paused"
    with pytest.raises(ValueError, match="no status 'paused'"):
        TaskRecord.from_dict(data)
