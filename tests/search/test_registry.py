"""The degradation registry's rules, one test each (real files under tmp_path)."""

from __future__ import annotations

import json

import pytest

from pagerecall.config import Settings
from pagerecall.search.registry import RegistryReport, normalize_path, read_registry


def write(tmp_path, data, name="degraded.json"):
    """Write ``data`` as JSON (or raw text when it is a ``Raw`` string)."""
    path = tmp_path / name
    path.write_text(data if isinstance(data, Raw) else json.dumps(data), encoding="utf-8")
    return path


class Raw(str):
    """Text written to the registry file as is (for malformed JSON)."""


def test_no_path_configured_is_absent() -> None:
    report = read_registry(None)
    assert report.status == "absent"
    assert report.degraded_count is None
    assert report.is_degraded("a.pdf") is None
    assert report.to_dict()["status"] == "absent"


def test_valid_registry(tmp_path) -> None:
    path = write(tmp_path, {"files": ["scans/a.pdf", "b.pdf"], "count": 2})
    report = read_registry(path)
    assert report.status == "ok" and report.reason is None
    assert report.degraded == ("scans/a.pdf", "b.pdf")
    assert report.degraded_count == 2 and report.declared_count == 2
    assert report.count_mismatch is None
    assert report.is_degraded("scans/a.pdf") is True
    assert report.is_degraded("c.pdf") is False
    assert report.warnings == ()


def test_missing_file_reports_unknown_never_zero(tmp_path) -> None:
    report = read_registry(tmp_path / "nope.json")
    assert report.status == "unknown"
    assert report.degraded_count is None  # never 0
    assert "cannot read" in report.reason
    assert report.is_degraded("a.pdf") is None
    assert report.to_dict()["degraded_count"] is None


@pytest.mark.parametrize("text", ['{"files": ["a.pdf",', "", "\ufffe not json", "{'files': []}"])
def test_malformed_json_reports_unknown(tmp_path, text) -> None:
    report = read_registry(write(tmp_path, Raw(text)))
    assert report.status == "unknown" and report.degraded_count is None
    assert "invalid JSON" in report.reason


def test_non_utf8_file_reports_unknown(tmp_path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"files": ["café.pdf"]}'.encode("latin-1"))
    report = read_registry(path)
    assert report.status == "unknown" and "cannot read" in report.reason


def test_directory_instead_of_file_reports_unknown(tmp_path) -> None:
    report = read_registry(tmp_path)
    assert report.status == "unknown" and report.degraded_count is None


@pytest.mark.parametrize("data", [["a.pdf"], "a.pdf", 3, None])
def test_top_level_not_an_object_is_unknown(tmp_path, data) -> None:
    report = read_registry(write(tmp_path, data))
    assert report.status == "unknown" and "not an object" in report.reason


def test_files_missing_is_unknown(tmp_path) -> None:
    report = read_registry(write(tmp_path, {"count": 0, "generated": "x"}))
    assert report.status == "unknown"
    assert '"files" is missing' in report.reason
    assert report.degraded_count is None


@pytest.mark.parametrize(
    "files", ["a.pdf", {"a.pdf": 1}, ["a.pdf", 3], ["a.pdf", None], ["", "b.pdf"], [["a.pdf"]], None, 2]
)
def test_files_not_an_array_of_path_strings_is_unknown(tmp_path, files) -> None:
    report = read_registry(write(tmp_path, {"files": files, "count": 1}))
    assert report.status == "unknown"
    assert report.degraded_count is None
    assert "array of non-empty path strings" in report.reason


def test_empty_files_is_a_real_zero(tmp_path) -> None:
    report = read_registry(write(tmp_path, {"files": []}))
    assert report.status == "ok" and report.degraded_count == 0


def test_count_mismatch_is_reported_not_resolved(tmp_path) -> None:
    report = read_registry(write(tmp_path, {"files": ["a.pdf", "b.pdf", "c.pdf"], "count": 5}))
    assert report.status == "ok"
    assert report.count_mismatch == {"declared": 5, "listed": 3}
    assert report.declared_count == 5
    assert report.degraded_count == 3  # what is listed, not what is declared
    assert report.to_dict()["count_mismatch"] == {"declared": 5, "listed": 3}
    assert any('"count" says 5' in w for w in report.warnings)


@pytest.mark.parametrize("count", ["3", 3.0, True, None])
def test_count_not_an_integer_is_a_warning(tmp_path, count) -> None:
    report = read_registry(write(tmp_path, {"files": ["a.pdf"], "count": count}))
    assert report.status == "ok" and report.declared_count is None and report.count_mismatch is None
    assert any("not an integer" in w for w in report.warnings)


@pytest.mark.parametrize("nc", [["x.pdf", "./y.pdf"], {"files": ["x.pdf", "y.pdf"], "note": "drafts"}])
def test_non_citable_reported_apart_and_never_counted(tmp_path, nc) -> None:
    report = read_registry(write(tmp_path, {"files": ["a.pdf"], "count": 1, "non_citable": nc}))
    assert report.status == "ok"
    assert report.non_citable == ("x.pdf", "y.pdf")
    assert report.degraded_count == 1 and report.count_mismatch is None
    assert report.is_non_citable("y.pdf") is True
    assert report.is_degraded("y.pdf") is False
    assert report.is_non_citable("a.pdf") is False


@pytest.mark.parametrize("nc", ["x.pdf", {"paths": ["x.pdf"]}, [1], {"files": "x.pdf"}])
def test_malformed_non_citable_is_unknown_apart(tmp_path, nc) -> None:
    report = read_registry(write(tmp_path, {"files": ["a.pdf"], "non_citable": nc}))
    assert report.status == "ok" and report.degraded_count == 1
    assert report.non_citable is None
    assert report.is_non_citable("x.pdf") is None
    assert any("non_citable" in w for w in report.warnings)


@pytest.mark.parametrize("generated", ["2024-05-01T12:00:00Z", 1714560000, {"by": "ingest.py", "v": [1, 2]}, None])
def test_generated_passed_through_untouched(tmp_path, generated) -> None:
    report = read_registry(write(tmp_path, {"files": [], "generated": generated}))
    assert report.generated == generated
    assert report.to_dict()["generated"] == generated


def test_generated_kept_even_when_unknown(tmp_path) -> None:
    report = read_registry(write(tmp_path, {"files": "bad", "generated": {"at": 1}}))
    assert report.status == "unknown" and report.generated == {"at": 1}


def test_paths_are_normalised(tmp_path) -> None:
    report = read_registry(write(tmp_path, {"files": ["./scans\\old.pdf", "a//b.pdf", "./a//b.pdf"]}))
    assert report.degraded == ("scans/old.pdf", "a/b.pdf")
    assert report.degraded_count == 2
    assert any("duplicate" in w for w in report.warnings)
    assert report.is_degraded("scans/old.pdf") and report.is_degraded("./scans/old.pdf")
    assert report.is_degraded("scans\\old.pdf")
    assert normalize_path("././x/./y") == "x/./y"


def test_to_dict_is_json_serialisable(tmp_path) -> None:
    report = read_registry(write(tmp_path, {"files": ["a.pdf"], "count": 2, "non_citable": ["n.pdf"]}))
    again = json.loads(json.dumps(report.to_dict()))
    assert again["degraded"] == ["a.pdf"] and again["non_citable"] == ["n.pdf"]
    assert set(again) == {
        "status", "path", "degraded", "degraded_count", "declared_count", "count_mismatch",
        "non_citable", "generated", "reason", "warnings",
    }


def test_report_is_frozen() -> None:
    report = RegistryReport(status="absent")
    with pytest.raises(AttributeError):
        report.status = "ok"  # type: ignore[misc]


def test_path_from_settings_env_and_alias(tmp_path) -> None:
    path = write(tmp_path, {"files": ["a.pdf"]})
    for name in ("PAGERECALL_DEGRADED", "SEMANTIC_RECALL_DEGRADED"):
        settings = Settings.from_env({name: str(path)})
        assert read_registry(settings.degraded_registry).degraded_count == 1
    assert read_registry(Settings.from_env({}).degraded_registry).status == "absent"
