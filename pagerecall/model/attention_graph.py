"""Rewrites of the bundled encoder graph's attention that compute the same function.

The graph of :func:`pagerecall.model.converter.build_onnx` runs each layer's attention core on
the whole batch at once: Q·Kᵀ of every passage and head into one float32 tensor of
``batch x 12 x seq x seq`` (61 MB per layer for 32 passages of 200 tokens), then the mask
``Add``, the ``Softmax`` and probs·V each read and write that tensor again, out of the CPU's
caches. :func:`per_passage_attention` runs the same operators passage by passage (an ONNX
``Scan`` over the batch axis): each passage's scores (1.9 MB at 200 tokens) stay in cache.

Same function, bit for bit: each operator of the core works on one passage (and head) at a
time anyway (``MatMul`` per matrix, ``Softmax`` per row, the additive mask per key), so cutting
the batch changes no arithmetic; ``tests/model/test_attention_graph.py`` compares the vectors of
every passage of the demo corpora with the batched graph's, and
``bench/attention_ab.py --exact`` does it from the command line.

Where it applies: the ``int8`` graph after ``quantize_dynamic`` (node names as ``build_onnx``
writes them, ``l{i}_q`` … ``l{i}_ctx``); the attention's float32 ops are not quantised, so the
rewrite sees the same core as in the float32 graph. Why and the measurements:
docs/decisions/build-overhead.md, "A cheaper attention path".
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

PER_PASSAGE = True
"""Whether indexing sessions of the int8 graph run :func:`per_passage_attention` (False: the
batched graph, as before; the vectors are the same either way)."""
VARIANT = "pp1"
"""Key of the rewritten graph among the saved optimised graphs (``ort_session.optimized_graph_path``);
bump when the rewrite changes."""

CORE = ("q4", "qh", "k4", "khT", "v4", "vh", "scores0", "scores1", "scores", "probs", "ctxh", "ctxt", "ctx")
"""The per-layer nodes (``l{i}_<name>``) of ``build_onnx``'s attention core that the rewrite replaces."""


def _layers(graph: Any) -> int:
    return sum(1 for n in graph.node if n.name.endswith("_probs") and n.op_type == "Softmax")


def _body(i: int, heads: int, head_dim: int, hidden: int, scale: np.ndarray):
    """One passage's attention core: ``q``, ``k``, ``v`` float32 ``(seq, hidden)`` and the additive
    mask ``madd`` float32 ``(seq,)`` (0 for tokens, -1e4 for padding) → ``ctx`` ``(seq, hidden)``;
    the operators of ``build_onnx`` on one passage (``Mul`` by 1/√d after Q·Kᵀ, as there)."""
    from onnx import TensorProto, helper, numpy_helper

    def t(name: str, shape: list) -> Any:
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)

    nodes = [
        helper.make_node("Reshape", ["q", "shape3"], ["q3"]),
        helper.make_node("Transpose", ["q3"], ["qh"], perm=[1, 0, 2]),
        helper.make_node("Reshape", ["k", "shape3"], ["k3"]),
        helper.make_node("Transpose", ["k3"], ["khT"], perm=[1, 2, 0]),
        helper.make_node("Reshape", ["v", "shape3"], ["v3"]),
        helper.make_node("Transpose", ["v3"], ["vh"], perm=[1, 0, 2]),
        helper.make_node("MatMul", ["qh", "khT"], ["scores0"]),
        helper.make_node("Mul", ["scores0", "scale"], ["scores1"]),
        helper.make_node("Add", ["scores1", "madd"], ["scores"]),
        helper.make_node("Softmax", ["scores"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "vh"], ["ctxh"]),
        helper.make_node("Transpose", ["ctxh"], ["ctxt"], perm=[1, 0, 2]),
        helper.make_node("Reshape", ["ctxt", "shape2"], ["ctx"]),
    ]
    inits = [
        numpy_helper.from_array(np.array([0, heads, head_dim], dtype=np.int64), "shape3"),
        numpy_helper.from_array(np.array([0, hidden], dtype=np.int64), "shape2"),
        numpy_helper.from_array(np.asarray(scale, dtype=np.float32), "scale"),
    ]
    return helper.make_graph(nodes, f"l{i}_attention", [t("q", ["seq", hidden]), t("k", ["seq", hidden]),
                             t("v", ["seq", hidden]), t("madd", ["seq"])], [t("ctx", ["seq", hidden])], initializer=inits)


def per_passage_attention(model: Any, heads: int = 12, hidden: int = 384) -> Any:
    """Rewrite ``model`` (an ``onnx.ModelProto`` from ``build_onnx``, quantised or not) in place
    so that each layer's attention core runs in a ``Scan`` over the batch axis, and return it.

    Inputs of each ``Scan``: ``l{i}_q``, ``l{i}_k``, ``l{i}_v`` float32 ``(batch, seq, hidden)``
    and ``mask_add2`` float32 ``(batch, seq)`` (the additive mask before its ``Unsqueeze``);
    output ``l{i}_ctx`` ``(batch, seq, hidden)``, as before. Raises ``ValueError`` when the graph
    does not hold ``build_onnx``'s attention core (another converter's graph)."""
    from onnx import helper, numpy_helper

    g = model.graph
    n_layers = _layers(g)
    names = {n.name for n in g.node}
    inits = {t.name: t for t in g.initializer}
    missing = [f"l{i}_{s}" for i in range(n_layers) for s in CORE if f"l{i}_{s}" not in names]
    if not n_layers or missing or "att_scale" not in inits or "mask_add2" not in {o for n in g.node for o in n.output}:
        raise ValueError(f"not build_onnx's attention core (layers {n_layers}, missing {missing[:3]})")
    scale = numpy_helper.to_array(inits["att_scale"])
    drop = {f"l{i}_{s}" for i in range(n_layers) for s in CORE}
    scans = {
        f"l{i}_ctx": helper.make_node("Scan", [f"l{i}_q", f"l{i}_k", f"l{i}_v", "mask_add2"], [f"l{i}_ctx"],
                                      name=f"l{i}_attention", num_scan_inputs=4,
                                      body=_body(i, heads, hidden // heads, hidden, scale))
        for i in range(n_layers)
    }
    out = []
    for n in g.node:
        for name in n.input:  # each Scan goes right before the first node that reads its output
            if name in scans:
                out.append(scans.pop(name))
        if n.name not in drop:
            out.append(n)
    del g.node[:]
    g.node.extend(out)
    core_outputs = {f"l{i}_{s}" for i in range(n_layers) for s in CORE}
    keep = [v for v in g.value_info if v.name not in core_outputs]  # shapes of removed tensors
    del g.value_info[:]
    g.value_info.extend(keep)
    used = {name for n in g.node for name in n.input} | {o.name for o in g.output}
    if "mask_add" not in used:  # the Unsqueeze to (batch, 1, 1, seq) has no reader left
        unsq = [n for n in g.node if n.output[0] == "mask_add"]
        for n in unsq:
            g.node.remove(n)
    return model


def rewrite_or_keep(model: Any) -> Any:
    """:func:`per_passage_attention`, or ``model`` unchanged (one log line) when it does not hold
    ``build_onnx``'s attention core: the batched graph gives the same vectors."""
    try:
        return per_passage_attention(model)
    except ValueError as exc:
        log.info("Attention runs batched: %s", exc)
        return model
