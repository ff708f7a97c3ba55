"""Task records: their ids, their plain-data form."""

from __future__ import annotations

import pytest

from plainmcp.tasks import TaskRecord, new_task_id


def test_ids_are_long_random_and_hex_so_none_reads_as_an_option() -> None:
    ids = {new_task_id() for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 48 and set(i) <= set("0123456789abcdef") for i in ids)


def test_a_record_with_an_unknown_status_is_refused() -> None:
    data = TaskRecord("t", None, created_at=0, updated_at=0, ttl_ms=1, poll_ms=1).to_dict()
    data["status"] = "paused"
    with pytest.raises(ValueError, match="no status 'paused'"):
        TaskRecord.from_dict(data)


def test_a_record_holding_pre_encoded_json_gives_its_plain_data_and_json() -> None:
    # A structured result may carry orjson.Fragment (JSON encoded once, written as it is),
    # which dataclasses.asdict's deep copy cannot copy.
    import orjson

    result = {"content": [], "structuredContent": orjson.Fragment(b'{"n":1}')}
    record = TaskRecord("t", None, created_at=0, updated_at=0, ttl_ms=1, poll_ms=1, result=result)
    data = record.to_dict()
    assert data["result"] is result
    assert orjson.loads(orjson.dumps(data))["result"] == {
        "content": [],
        "structuredContent": {"n": 1},
    }
