"""bench/ as a suite: every script imports without running or loading the model, answers ``--help``, is in
bench/README.md's table, prints the suite's header, and imports no other script's private helper.

Nothing here times anything: the scripts' figures are theirs to print (bench/README.md).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
README = BENCH / "README.md"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))
HELPERS = sorted(p for p in BENCH.glob("_*.py"))

# One child process imports every script (bench/ on the path, as `python bench/x.py` has it), calls
# main(["--help"]) and reports what that loaded: run apart so that modules other tests imported do
# not hide what the scripts import.
PROBE = r"""
import contextlib, importlib.util, io, json, sys
from pathlib import Path
bench = Path(sys.argv[1])
sys.path.insert(0, str(bench))
out = {"scripts": {}}
for path in sorted(p for p in bench.glob("*.py") if not p.name.startswith("_")):
    name = "bench_" + path.stem
    got = out["scripts"][path.name] = {}
    stdout = io.StringIO()
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # dataclasses look their module up
        with contextlib.redirect_stdout(stdout):
            spec.loader.exec_module(mod)
        got["printed_on_import"] = stdout.getvalue()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
            mod.main(["--help"])
        got["error"] = "main(['--help']) returned instead of exiting"
    except SystemExit as exc:
        got["exit"] = exc.code
        got["help"] = stdout.getvalue()
    except BaseException as exc:
        got["error"] = f"{type(exc).__name__}: {exc}"
emb = sys.modules.get("pagerecall.model.embedding")
out["embedders_loaded"] = len(emb._CACHE) if emb else 0
out["heavy_modules"] = sorted({m.split(".")[0] for m in sys.modules} & {"lancedb", "lance", "fastembed", "openvino", "ray"})
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def probe() -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(BENCH)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_bench_has_scripts() -> None:
    assert len(SCRIPTS) >= 30, [p.name for p in SCRIPTS]
    assert "_suite.py" in [p.name for p in HELPERS]


def test_every_script_imports_without_running_and_answers_help(probe: dict) -> None:
    assert sorted(probe["scripts"]) == [p.name for p in SCRIPTS]
    for name, got in probe["scripts"].items():
        assert "error" not in got, f"{name}: {got['error']}"
        assert got["printed_on_import"] == "", f"{name} runs on import (no `if __name__ == '__main__'` guard?)"
        assert got["exit"] in (0, None), f"{name} --help exited {got['exit']}"
        assert got["help"].startswith("usage:"), f"{name} --help printed {got['help'][:200]!r}"


def test_importing_the_scripts_loads_no_model_and_no_index_library(probe: dict) -> None:
    assert probe["embedders_loaded"] == 0
    assert probe["heavy_modules"] == []


def _table_rows() -> list[list[str]]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Every script", 1)[1].split("\n## ", 1)[0]
    rows = [re.split(r"(?<!\\)\|", line)[1:-1] for line in section.splitlines() if line.startswith("| `")]
    assert rows, "bench/README.md has no table of scripts under '## Every script'"
    return rows


def test_readme_table_lists_every_script_once_with_what_it_backs() -> None:
    rows = _table_rows()
    names = [re.fullmatch(r"\s*`([a-z0-9_]+\.py)`\s*", r[0]).group(1) for r in rows]
    assert sorted(names) == names, "keep the table in alphabetical order"
    assert names == [p.name for p in SCRIPTS], "bench/README.md's table and bench/*.py differ"
    for row in rows:
        assert len(row) == 4 and all(cell.strip() for cell in row), row
        assert f"bench/{row[0].strip(' `')}" in row[2], f"{row[0]}: the 'how to run' cell names another script"
        for link in re.findall(r"\]\(([^)]+)\)", row[3]):
            assert (BENCH / link).resolve().is_file(), f"{row[0]}: {link} does not exist"


def _exists(name: str) -> bool:
    """Whether ``pagerecall.a.b`` (a module, or a name a module defines at top level) or a path
    ``pagerecall/a/b.py`` names something real; read from the sources, nothing imported."""
    if "/" in name:
        return (ROOT / name).exists()
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:i])
        source = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if not source.is_file():
            continue
        if i == len(parts):
            return True
        tree = ast.parse(source.read_text(encoding="utf-8"))
        defined = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                defined.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defined |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                defined |= {(a.asname or a.name).split(".")[0] for a in node.names}
        return parts[i] in defined or (base / parts[i]).exists()
    return False


def test_readme_and_script_docstrings_name_only_modules_that_exist() -> None:
    pattern = re.compile(r"pagerecall(?:[./][A-Za-z_][A-Za-z0-9_]*)+(?:\.py|\.json)?")
    missing = []
    for path in [README, *SCRIPTS, *HELPERS]:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            text = ast.get_docstring(ast.parse(text)) or ""
        for name in sorted(set(pattern.findall(text))):
            if not _exists(name.removesuffix(".py") if "/" not in name else name):
                missing.append(f"{path.name}: {name}")
    assert missing == []


def test_no_script_imports_another_scripts_private_helper_and_each_prints_the_header() -> None:
    scripts = {p.stem for p in SCRIPTS}
    for path in SCRIPTS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in scripts:
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from bench/{node.module}.py"
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in scripts:
                assert not node.attr.startswith("_"), f"{path.name} uses {node.value.id}.{node.attr}"
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("spec_from_file_location"):
                assert "bench" not in ast.unparse(node), f"{path.name} loads a script by path: {ast.unparse(node)}"
        calls = {ast.unparse(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        assert "suite.start" in calls, f"{path.name} does not print the suite's header (_suite.start)"
        guard = [n for n in tree.body if isinstance(n, ast.If) and "__name__" in ast.unparse(n.test)]
        assert guard, f"{path.name} has no `if __name__ == '__main__':` guard"


def test_percentiles_are_nearest_rank() -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import _suite
    finally:
        sys.path.remove(str(BENCH))
    values = [i / 1000 for i in range(20, 0, -1)]  # 1..20 ms, unsorted
    assert _suite.percentiles(values) == {"p50": 10.0, "p95": 19.0}  # interpolation would give 10.5 and 19.05
    assert _suite.percentile([0.25], 99) == 250.0
    assert _suite.percentiles([], (50, 99)) == {"p50": None, "p99": None}
    assert _suite.percentiles([3.0, 1.0, 2.0], (50,), scale=1, ndigits=None) == {"p50": 2.0}


def test_a_script_prints_the_header_with_its_figures(tmp_path: Path) -> None:
    """``compare_eval.py`` (no model, no index) on two small reports: header first, then its table."""
    reports = []
    for name, scores in (("base", [0.2, 0.4, 0.5, 0.1]), ("new", [0.3, 0.5, 0.6, 0.2])):
        per_query = {f"q{i}:en": {"ndcg@10": s} for i, s in enumerate(scores)}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps({"results": [{"set": "demo-section", "mode": "hybrid", "per_query": per_query}]}))
        reports.append(str(path))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(BENCH / "compare_eval.py"), *reports], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert lines[0].startswith("# bench/compare_eval.py | ") and f"commit {head or 'unknown'}" in lines[0]
    assert lines[1].startswith("# machine: ") and f"{os.cpu_count()} cores" in lines[1] and "ISA: " in lines[1]
    assert re.match(r"# load before: \d+\.\d\d \d+\.\d\d \d+\.\d\d ", lines[2])
    assert any(line.startswith("# args: ") and "metric=ndcg@10" in line for line in lines[:6])
    row = next(line for line in lines if line.startswith("| demo-section | hybrid | all |"))
    assert "| 0.3000 | 0.4000 | +0.1000 |" in row and "4/0/0" in row
