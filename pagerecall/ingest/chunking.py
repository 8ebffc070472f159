"""Split a document into passages sized in the embedding model's own tokens, mapped to pages.

Pure: no I/O, no model; it needs only a ``Tokenizer`` (``pagerecall.types``) giving character
spans of tokens.

How a document is cut
=====================

1. **Contributing pages.** Pages whose status is ``image_only``, ``empty`` or ``garbled``, and
   pages whose text is only whitespace, contribute no text: they are skipped (a chunk may still
   *span* them, e.g. ``page_start=3, page_end=5`` around an image-only page 4).
2. **Tokens, page by page.** Each contributing page is tokenised on its own, in batches
   (``token_spans_batch``), never the whole document at once (DATA.md: one call over a 2,400-page
   manual peaked at 1.06 GB RSS). Token spans are kept in compact ``array('i')`` buffers. A
   page that begins with a control character the normalizer drops (U+000B, U+0008, ...) is
   tokenised with a space in front, because the tokenizer's offsets leave such characters out
   (``_chunkplan._page_spans``). A page's trailing "▁" token (its final whitespace) is left out of the
   plan, but not a trailing U+0085 token, which a chunk spanning the page join holds.
3. **The joined text.** Conceptually the contributing pages are joined by a single ``"\\n"``
   (never ``"\\f"``: PyMuPDF text contains form feeds inside pages). A chunk spanning pages
   ``a < b`` has the text ``"\\n".join([A[char_start:], *middle_texts, B[:char_end]])`` where
   ``A``/``B`` are the texts of ``page_start``/``page_end`` and ``middle_texts`` the *full*
   texts of the contributing pages in between (skipped pages add nothing, not even a
   separator). A one-page chunk is ``A[char_start:char_end]``. Chunk texts never start or end
   with whitespace.
4. **Ends.** A chunk has at most ``B = min(params.max_tokens, tokenizer.max_tokens -
   tokenizer.overhead)`` tokens. Its end is the last *sentence end* found in the final quarter
   of that window (``B // 4`` tokens); failing that, the last word end there; failing that, the
   token boundary at ``B``. Sentence ends (see ``_chunkplan.sentence_breaks``): ``. ! ? …`` followed by
   optional closing quotes/brackets and then whitespace or the end of the page; the CJK and
   other full stops ``。！？．｡`` (no space needed) plus ``। ؟ ۔``; and paragraph breaks (a
   blank line). Abbreviations (``e.g. x``) are taken as sentence ends: a known, cheap error.
   Page anchors (:mod:`pagerecall.ingest.chunk_anchors`, off by default: measured, below the
   quality bar) would end chunks at long pages' ends so that an edit moves its own page's cuts only.
5. **Overlap.** The next chunk starts about ``params.overlap_tokens`` tokens before the end of
   the previous one, at a sentence start if one lies within ``overlap ± overlap/2`` tokens,
   else at the word start nearest to ``overlap`` (within ``± overlap/4``), else exactly there.
   A start inside a page's trailing page-number line ("…dusk.\\n43") moves to the next page's first
   token while the chunk before still covers the number, so the pointer starts where the text does.
6. **Minimum size.** A tail shorter than ``params.min_tokens`` is never emitted on its own: the
   chunk before it ends early enough to leave the tail at least ``min_tokens`` new tokens, and
   the last chunk starts at least ``min_tokens`` tokens before the end. Those are planned
   counts (tokens in context); a tail that starts inside a word (``"…ですdonnées"``: 3 pieces
   in context, 1 alone) can re-tokenise below ``min_tokens``. Such a tail is merged into the
   chunk before it when the merged text fits ``B``; otherwise that chunk ends earlier by the
   missing tokens and the plan resumes from there. Only if that would leave the chunk before
   below ``min_tokens`` itself, or no earlier end re-tokenises within ``min_tokens..B``, is a
   short tail kept. Likewise a chunk before the tail that
   re-tokenises below ``min_tokens`` (e.g. cut inside a word, or on a page whose characters the
   normalizer changes) is extended by the missing tokens when the result fits ``B``; if that re-tokenises short
   again, up to three more ends are tried, each past the planned tokens that leave no character in a text they
   end (U+0085, whitespace to ``str.strip`` but a token to the tokenizer, and its lone "▁": ``_extend_short``).
   A document with fewer tokens than
   ``min_tokens`` gives one chunk; one with no text gives none.
7. **Check.** ``n_tokens`` is the token count of the chunk's own text. Where both ends are cut
   at word-splitting whitespace (or page edges), not right after a word's lone "▁" token, every planned
   token at each end has a character in the text (not U+0085 or the "▁" before it, stripped off it), and the
   characters around each cut and page join are ones the tokenizer's normalizer leaves alone
   (``_Planner.regular_cut``: ``_chunkplan._REGULAR_RE`` near the cuts, not over whole pages), that count
   equals the planned one (the tokenizer splits words there; checked once per tokenizer by
   ``_chunkplan._whitespace_exact`` and for the bundled one by the tests) and re-tokenising is skipped: it saves most of a second tokenising pass
   (R refman: 24 s -> 18 s, on a loaded machine). Every other chunk (CJK cuts, cuts inside words, odd characters) is re-tokenised in
   batches; one over ``B`` is shortened (again at a sentence or word end) and the plan
   continues from its new end. So ``n_tokens <= params.max_tokens`` and
   ``n_tokens + tokenizer.overhead <= tokenizer.max_tokens`` hold for every chunk, exactly.

Token ids: with a tokenizer that hands them (``hands_ids``: the light build tokenizer) each chunk also
carries the ids of its text's tokens (``Chunk.token_ids``): the planned tokens' ids for a chunk that
was not re-tokenised (the same tokens, by the argument of step 7), the re-tokenised ones otherwise;
None when the text holds an added token or does not begin a word of its own after the passage prefix
(``starts_word``). The embedder builds the passage's model ids from them instead of tokenising it
again (docs/decisions/build-overhead.md).

Coverage: characters the tokenizer drops (e.g. U+FEFF, combining marks merged by NFKC) belong
to the chunk of the following token, and each page's trailing characters to the chunk of its
last token, so the chunks together cover every non-whitespace character of every contributing
page; nothing is truncated (CJK text without spaces included).

Default ``ChunkParams``: max 200 / overlap 40 / min 32 tokens. 200 tokens is about a paragraph
or two of a manual, still a precise pointer; overlap 40 keeps a sentence cut at a boundary findable
from either side; min 32 stops a page-end crumb from becoming its own near-empty passage. A new
overlap changes the fingerprint's ``chunking``: an update of an index chunked otherwise is refused.
Why: docs/decisions/chunk-size.md.
"""

from __future__ import annotations

import logging
from array import array

from pagerecall.ingest.chunk_plan import _NONSPACE_RE, WINDOW_CHARS, _Planner
from pagerecall.config import ChunkParams
from pagerecall.errors import UsageError
from pagerecall.text.fold import NO_SPACE_CHAR
from pagerecall.types import Chunk, Document, Page, Tokenizer

log = logging.getLogger(__name__)

SKIPPED_STATUSES: frozenset[str] = frozenset({"image_only", "empty", "garbled", "unreadable"})
"""Page statuses whose text is ignored by the chunker (their text is ``""`` or junk)."""

PAGE_JOIN = "\n"
"""Separator between the texts of consecutive contributing pages inside one chunk."""

_VERIFY_BATCH = 64  # planned chunks re-tokenised per tokenizer call


def contributing_pages(doc: Document) -> list[Page]:
    """The pages whose text the chunker uses: status not in ``SKIPPED_STATUSES`` and with at
    least one non-whitespace character, in document order."""
    return [p for p in doc.pages if p.status not in SKIPPED_STATUSES and _NONSPACE_RE.search(p.text)]


def _validate(params: ChunkParams, tokenizer: Tokenizer) -> int:
    budget = min(params.max_tokens, tokenizer.max_tokens - tokenizer.overhead)
    if budget < 1:
        raise UsageError(
            f"Chunk size {params.max_tokens} leaves no room in the model's {tokenizer.max_tokens} tokens "
            f"(overhead {tokenizer.overhead}). Next: choose max_tokens >= 1."
        )
    if not 0 <= params.overlap_tokens < params.max_tokens:
        raise UsageError(
            f"overlap_tokens={params.overlap_tokens} must be >= 0 and < max_tokens={params.max_tokens}. "
            "Next: lower the overlap (default 40)."
        )
    if not 0 <= params.min_tokens <= params.max_tokens:
        raise UsageError(
            f"min_tokens={params.min_tokens} must be >= 0 and <= max_tokens={params.max_tokens}. "
            "Next: lower min_tokens (default 32)."
        )
    return budget


def _render(texts: list[str], ps: int, cs: int, pe: int, ce: int) -> str:
    if ps == pe:
        return texts[ps][cs:ce]
    return PAGE_JOIN.join([texts[ps][cs:], *texts[ps + 1 : pe], texts[pe][:ce]])


def _measure(tokenizer: Tokenizer, texts: list[str]) -> list[tuple[int, array | None]]:
    """The token count of each text alone, and the ids of its tokens when the tokenizer hands
    them on for the passage (:func:`_handed`), else None."""
    if getattr(tokenizer, "hands_ids", False):
        return [(len(spans), _handed(tokenizer, t, ids, len(spans)))
                for t, (spans, ids) in zip(texts, tokenizer.spans_ids_batch(texts))]
    return [(len(spans), None) for spans in tokenizer.token_spans_batch(texts)]


def _handed(tokenizer: Tokenizer, text: str, ids, n: int) -> array | None:
    """``ids`` (the ``n`` tokens of ``text`` alone) as the chunk's ``token_ids`` when the embedder
    may build the passage's model ids from them: the text starts a word of its own after the
    passage prefix (``starts_word``); else None (the embedder tokenises the passage)."""
    if ids is None or len(ids) != n or not tokenizer.starts_word(text):
        return None
    return ids if isinstance(ids, array) else array("i", ids)


def _mend_short_tail(
    plan: _Planner,
    texts: list[str],
    tokenizer: Tokenizer,
    budget: int,
    spans_out: list[tuple[int, int, int, int, str, int, array | None]],
    toks_out: list[tuple[int, int]],
    tail: tuple[int, int, int, int, str, int],
) -> int | None:
    """Deal with a last chunk whose re-tokenised count ``tail[5]`` is below ``plan.min``.

    The planner counts tokens in context; a tail that starts inside a word (CJK followed by
    Latin, no space) re-tokenises to fewer pieces. First choice: merge it into the previous
    chunk (``spans_out[-1]`` is replaced; returns None). If the merged text exceeds ``budget``:
    end the previous chunk earlier by the missing tokens (at a sentence or word end when there
    is one) and return the token where the plan resumes (the previous chunk is replaced). If
    that would leave the previous chunk below ``plan.min`` too, return -1: the tail is kept as
    it is (the only case where a chunk below ``min_tokens`` is emitted beside others).
    """
    ps, cs, pe, ce, text, n = tail
    pps, pcs = spans_out[-1][:2]
    pa, pb = toks_out[-1]
    merged = _render(texts, pps, pcs, pe, ce)
    mn, mids = _measure(tokenizer, [merged])[0]
    if mn <= budget:
        spans_out[-1] = (pps, pcs, pe, ce, merged, mn, mids)
        toks_out[-1] = (pa, plan.N)
        return None
    limit = pb - (plan.min - n)
    if limit - pa < plan.min:
        return -1
    nb = plan.choose_end(pa, limit=limit)
    npe, nce, _ = plan.char_end(nb)
    if nb >= pb or (npe, nce) <= (pps, pcs):
        return -1
    ptext = _render(texts, pps, pcs, npe, nce)
    pn, pids = _measure(tokenizer, [ptext])[0]
    if not plan.min <= pn <= budget:
        return -1
    spans_out[-1] = (pps, pcs, npe, nce, ptext, pn, pids)
    toks_out[-1] = (pa, nb)
    nxt = plan.next_start(pa, nb)
    return -1 if nxt is None else nxt


_EXTEND_TRIES = 4  # re-tokenised attempts to bring a chunk below min_tokens up to it (_extend_short)


def _extend_short(
    plan: _Planner,
    texts: list[str],
    tokenizer: Tokenizer,
    budget: int,
    toks: tuple[int, int],
    start: tuple[int, int, int],
    limit: int | None = None,
) -> tuple[int, tuple[int, int, int, int, str, int, array | None]] | None:
    """A later end for the chunk of planned tokens ``toks = (a, b)`` whose text, from offset ``cs`` of
    contributing page ``ps`` (``start = (ps, cs, n)``), re-tokenised to ``n < plan.min`` tokens:
    ``(new end token, (ps, cs, pe, ce, text, n_tokens, token_ids))`` with ``plan.min <= n_tokens <=
    budget``, or None when no end up to :data:`_EXTEND_TRIES` attempts later (and at most ``limit``:
    below an end that re-tokenised over ``budget``) does that.

    Each attempt ends the chunk the missing tokens later; when that re-tokenised short again, the
    next attempts also end it past any planned tokens that leave no character in a chunk's text
    when they end it (:meth:`_Planner.blank`: the U+0085 token, which
    ``str.strip`` removes but the tokenizer keeps, and the lone "▁" before it): such tokens add
    nothing to the text, so an end among them re-tokenised to the same short count (found by
    hypothesis: ``"the the the \x85日本語…"``, min 4: "the the the" 3 tokens, not the last chunk).
    """
    a, b = toks
    ps, cs, n = start
    for attempt in range(_EXTEND_TRIES):
        floor = b + plan.min - n
        while attempt and floor < plan.N and plan.blank(floor - 1):
            floor += 1  # (not on the first attempt, which is the one chunk_document always made)
        nb = plan.choose_end(a, floor=floor, limit=limit)
        if nb <= b:
            return None
        pe, ce, _ = plan.char_end(nb)
        text = _render(texts, ps, cs, pe, ce)
        nn, ids = _measure(tokenizer, [text])[0]
        if plan.min <= nn <= budget:
            return nb, (ps, cs, pe, ce, text, nn, ids)
        if nn > budget or nb >= plan.N:
            return None
        b, n = nb, max(n, nn)
    return None


def chunk_document(doc: Document, tokenizer: Tokenizer, params: ChunkParams | None = None,
                   window: int = WINDOW_CHARS) -> list[Chunk]:
    """Cut ``doc`` into token-bounded, sentence-aligned, overlapping chunks mapped to pages.

    Returns chunks with ``seq`` 0..n-1 in document order; ``page_start``/``page_end`` are
    physical 1-based page numbers (``Page.number``) with their labels; ``char_start`` indexes
    the text of ``page_start``, ``char_end`` (exclusive) that of ``page_end``; ``text`` is the
    slice of the pages joined as described in the module docstring; ``n_tokens`` counts the
    tokenizer's tokens of ``text`` (no prefix, no special tokens); ``ocr`` is True when any
    spanned contributing page has status ``"ocr"``. A document with no usable text gives ``[]``.

    ``window``: characters tokenised per call (:data:`~pagerecall.ingest.chunk_plan.WINDOW_CHARS`; tests pass a small one).

    Raises ``UsageError`` when ``params`` are inconsistent (overlap >= max, min > max) or leave
    no room in the model's window.
    """
    params = params or ChunkParams()
    budget = _validate(params, tokenizer)
    pages = contributing_pages(doc)
    if not pages:
        return []
    texts = [p.text for p in pages]
    plan = _Planner(texts, tokenizer, budget, params, window)

    spans_out: list[tuple[int, int, int, int, str, int, array | None]] = []
    toks_out: list[tuple[int, int]] = []  # planned token range [a, b) of each entry of spans_out
    if plan.N == 0:  # text the tokenizer ignores entirely: keep it as one chunk, not lost
        ps, cs = 0, _NONSPACE_RE.search(texts[0]).start()
        pe = len(texts) - 1
        ce = len(texts[pe].rstrip())
        text = _render(texts, ps, cs, pe, ce)
        spans_out.append((ps, cs, pe, ce, text, *_measure(tokenizer, [text])[0]))
        toks_out.append((0, 0))
    s: int | None = 0
    while s is not None and plan.N:
        planned: list[tuple[int, int]] = []
        cur: int | None = s
        while cur is not None and len(planned) < _VERIFY_BATCH:
            e = plan.choose_end(cur)
            planned.append((cur, e))
            cur = plan.next_start(cur, e)
        rendered = []
        check: list[int] = []  # chunks whose token count must be measured by re-tokenising
        for i, (a, b) in enumerate(planned):
            start = plan.char_start(a)
            pe, ce, clean_end = plan.char_end(b)
            if start is None or (start[0], start[1]) >= (pe, ce):
                rendered.append(None)  # whitespace-only tokens: no text, nothing to keep
                continue
            ps, cs, clean_start = start
            rendered.append((ps, cs, pe, ce, _render(texts, ps, cs, pe, ce)))
            if not (clean_start and clean_end and plan.regular_cut(ps, cs, pe, ce)) or NO_SPACE_CHAR.match(
                    rendered[-1][4]):
                # a text that starts in a script written without spaces gets a separate "▁" token of
                # its own when tokenised alone ("中文" after a space: 1 token in context, 2 alone)
                check.append(i)
        counts = [b - a for a, b in planned]
        handed: list[array | None] = [None] * len(planned)  # token ids of the chunk text alone (_handed)
        for i, (a, b) in enumerate(planned):
            if rendered[i] is not None and i not in check:  # the planned tokens are the text's own
                handed[i] = _handed(tokenizer, rendered[i][4], plan.token_ids(a, b, rendered[i][0], rendered[i][2]), b - a)
        if check:
            for i, m in zip(check, _measure(tokenizer, [rendered[i][4] for i in check])):
                counts[i], handed[i] = m
        for (a, b), r, n, ids in zip(planned, rendered, counts, handed):
            if r is None or (spans_out and (r[2], r[3]) <= spans_out[-1][2:4]):
                # no text, or none past the end of the chunk before: its tokens after the overlap leave no
                # character in a text (found by hypothesis: "…\x85! \x85" ended "!", then a chunk "!" of the
                # overlap and the final "▁" and U+0085 that str.strip removes)
                continue
            ps, cs, pe, ce, text = r
            if n <= budget and b >= plan.N and n < plan.min and spans_out:
                # a tail that re-tokenised below min (cut inside a word: "すdonnées" -> "données"
                # loses pieces): merge it into the previous chunk, or end that one earlier
                redo = _mend_short_tail(plan, texts, tokenizer, budget, spans_out, toks_out, (ps, cs, pe, ce, text, n))
                if redo is None or redo >= 0:  # merged (the end), or re-plan from `redo`
                    cur = redo
                    break
            if b < plan.N and n < plan.min:
                # re-tokenised below min (a cut inside a word or on a page whose offsets the
                # normalizer shifts): end it later by the missing tokens, if that fits
                longer = _extend_short(plan, texts, tokenizer, budget, (a, b), (ps, cs, n))
                if longer is not None:
                    nb, entry = longer
                    spans_out.append(entry)
                    toks_out.append((a, nb))
                    cur = plan.next_start(a, nb)
                    break
            if n <= budget:
                spans_out.append((ps, cs, pe, ce, text, n, ids))
                toks_out.append((a, b))
                continue
            over = b  # the last end that re-tokenised over budget
            while n > budget and b > a + 1:  # re-tokenised longer than planned: shorten
                over = b
                b = plan.choose_end(a, limit=b - (n - budget))
                pe, ce, _ = plan.char_end(b)
                text = _render(texts, ps, cs, pe, ce)
                n, ids = _measure(tokenizer, [text])[0]
            if b < plan.N and n < plan.min:  # shortened below min: its last planned tokens were stripped
                # ones (found by hypothesis: "スす\n\x85фяф" over 8, cut before "\n\x85" to "スす", 3 < min 4)
                longer = _extend_short(plan, texts, tokenizer, budget, (a, b), (ps, cs, n), limit=over - 1)
                if longer is not None:
                    b, (ps, cs, pe, ce, text, n, ids) = longer
            log.debug("chunk of %s shortened to %d tokens after re-tokenising", doc.path, n)
            spans_out.append((ps, cs, pe, ce, text, n, ids))
            toks_out.append((a, b))
            cur = plan.next_start(a, b)
            break
        s = cur

    # a chunk shortened after re-tokenising can end where the chunk before does, past only tokens that
    # str.strip removes (found by hypothesis: "…空格\x85\x85한…" gave "…空格", then "空格" of the overlap):
    # it holds nothing of its own
    kept: list[tuple[int, int, int, int, str, int, array | None]] = []
    for x in spans_out:
        if not kept or x[2:4] > kept[-1][2:4]:
            kept.append(x)
    chunks = []
    for seq, (ps, cs, pe, ce, text, n, ids) in enumerate(kept):
        first, last = pages[ps], pages[pe]
        chunks.append(
            Chunk(
                file=doc.path,
                seq=seq,
                page_start=first.number,
                page_end=last.number,
                char_start=cs,
                char_end=ce,
                text=text,
                n_tokens=n,
                label_start=first.label,
                label_end=last.label,
                ocr=any(p.status == "ocr" for p in pages[ps : pe + 1]),
                token_ids=ids,
            )
        )
    return chunks
