"""The second to seventh adversarial sets, end to end: is a hidden sentence served, is a printed one kept?

Every case of ``tests/extract/constructions_heldout.py`` (``--set second``, the default) or
``tests/extract/constructions_third.py`` (``--set third``) or ``tests/extract/constructions_fourth.py``
(``--set fourth``: real-paper pages) or ``tests/extract/constructions_fifth.py`` (``--set fifth``: text
drawn over other text) or ``tests/extract/constructions_sixth.py`` (``--set sixth``: tricks none of the
others builds, and covers that are themselves not shown) or ``tests/extract/constructions_seventh.py``
(``--set seventh``: blank glyph outlines, blend modes, colour spaces and soft masks that leave the paper
white; one page, one unique sentence per case) of the
chosen half is written into a fresh corpus, ``pagerecall build`` indexes it, and each sentence is
looked for the way an agent meets text:

* ``page``: the page's text (``pagerecall page FILE 1 --json``) and its ``hidden`` list;
* ``search``: the sentence as a query (hybrid, k 10): every hit's snippet and passage text;
* ``passages``: every stored passage of the case's file (the index's ``chunks`` table);
* ``verify``: the sentence as a quote (``pagerecall verify SENTENCE --file FILE --page 1``): the match kind.

A sentence is found in a text when a window of :data:`WINDOW` of its characters (NFKC, casefolded,
whitespace removed) is there. A hidden trick **passes** when its sentence is found nowhere and
``verify`` does not say ``exact``/``normalised``. A printed control **passes** when the whole sentence
is in the page text, in a passage and in a search hit of its file, ``verify`` says ``exact`` (or
``normalised`` for a sentence the page wraps over lines, :func:`wrapped`: whitespace differs, as on a
plain page) and nothing of it is listed hidden. ``text_layer`` says whether PyMuPDF's text of the page holds the
sentence at all (without the rendering check): a control whose text layer lacks it (a shaping
font's glyph names, one glyph per line of vertical writing) fails on extraction, not visibility. ``plain_layer`` (third set) says whether the sentence, laid
out plainly by MuPDF's HTML engine, is read back whole: a hidden case without it passes for no
merit of the check and is counted apart (``void``).

    nice -n 10 python bench/hidden_heldout.py [--set third] --half held_out [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

import _suite as suite

WINDOW = 15
"""Characters of a sentence (whitespace removed) that identify it: no two sentences share one."""


def squash(text: str) -> str:
    """NFKC, casefolded, without whitespace: how a sentence is looked for."""
    return "".join(unicodedata.normalize("NFKC", text).casefold().split())


def found_part(sentence: str, text: str) -> bool:
    """True when a :data:`WINDOW`-character piece of ``sentence`` is in ``text``."""
    s, t = squash(sentence), squash(text)
    if len(s) <= WINDOW:
        return s in t
    return any(s[i:i + WINDOW] in t for i in range(0, len(s) - WINDOW + 1))


def found_whole(sentence: str, text: str) -> bool:
    return squash(sentence) in squash(text)


def wrapped(sentence: str, text: str) -> bool:
    """True when ``text`` holds ``sentence`` only across a line break (whole up to whitespace, but
    on no one line): ``verify`` then says ``normalised`` of it on a plain page too (the fourth set's
    paragraphs; measured on a plain wrapped paragraph, no trick), and that counts as found exact."""
    one_line = " ".join(sentence.split())
    return found_whole(sentence, text) and not any(one_line in " ".join(line.split()) for line in text.splitlines())


def _cli(*argv: str) -> tuple[int, dict]:
    from pagerecall.cli.commands import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    text = out.getvalue()
    try:
        return code, json.loads(text)
    except ValueError:
        return code, {"raw": text}


def text_layer(path: Path) -> str:
    import pymupdf

    with pymupdf.open(path) as doc:
        return doc[0].get_text()


def passages_of(index: Path) -> dict[str, list[str]]:
    import lancedb

    gen = index / (index / "CURRENT").read_text().strip()
    table = lancedb.connect(str(gen / "lance")).open_table("chunks")
    rows = table.search().select(["file", "text"]).limit(None).to_list()
    out: dict[str, list[str]] = {}
    for r in rows:
        out.setdefault(r["file"], []).append(r["text"])
    return out


SETS = {"second": "tests.extract.constructions_heldout", "third": "tests.extract.constructions_third",
        "fourth": "tests.extract.constructions_fourth", "fifth": "tests.extract.constructions_fifth",
        "sixth": "tests.extract.constructions_sixth", "seventh": "tests.extract.constructions_seventh"}
"""``--set``: the module of each adversarial set (``SENTENCES``, ``TUNING``, ``HELD_OUT``, ``build_case``)."""


def evaluate(names: list[str], work: Path, which: str = "second") -> tuple[list[dict], float]:
    """Build the cases ``names`` of set ``which`` into ``work/corpus``, index them, look for every sentence."""
    import importlib

    cases = importlib.import_module(SETS[which])
    SENTENCES, build_case, is_hidden = cases.SENTENCES, cases.build_case, cases.is_hidden
    plain = getattr(cases, "plain_layer_holds", None)

    corpus, index = work / "corpus", work / "index"
    corpus.mkdir(parents=True)
    for name in names:
        build_case(corpus, name)
    t0 = time.process_time()
    code, report = _cli("build", str(corpus), "--index", str(index), "-q", "--json", "--ocr", "off")
    build_cpu = time.process_time() - t0
    if code != 0:
        raise SystemExit(f"build failed ({code}): {report}")
    stored = passages_of(index)
    common = ("--index", str(index), "--corpus", str(corpus), "--in-process", "--json")
    rows = []
    for name in names:
        s, file = SENTENCES[name], f"{name}.pdf"
        _, page = _cli("page", file, "1", *common)
        page_text = page.get("text", "")
        listed = [h.get("text", "") for h in page.get("hidden") or ()]
        _, res = _cli("search", s, "-k", "10", *common)
        hits = res.get("hits") or []
        hit_texts = [(h.get("file"), (h.get("snippet") or "") + "\n" + (h.get("text") or "")) for h in hits]
        _, ver = _cli("verify", s, "--file", file, "--page", "1", *common)
        match = ver.get("match")
        row = {"case": name, "kind": "hidden" if is_hidden(name) else "printed",
               "text_layer": found_whole(s, text_layer(corpus / file)),
               "page": found_part(s, page_text), "page_whole": found_whole(s, page_text),
               "search": any(found_part(s, t) for _, t in hit_texts),
               "search_whole_own_file": any(f == file and found_whole(s, t) for f, t in hit_texts),
               "passages": any(found_part(s, t) for t in stored.get(file, ())),
               "passages_whole": any(found_whole(s, t) for t in stored.get(file, ())),
               "verify": match, "hidden_reason": ver.get("hidden_reason"),
               "listed_hidden": any(found_part(s, t) for t in listed),
               "listed_reasons": sorted({h.get("reason") for h in page.get("hidden") or ()}),
               "plain_layer": plain(name) if plain is not None else True}
        if row["kind"] == "hidden":
            row["served"] = row["page"] or row["search"] or row["passages"] or match in ("exact", "normalised")
            row["pass"] = not row["served"]
            row["void"] = row["pass"] and not row["plain_layer"]
        else:
            row["wrapped"] = wrapped(s, page_text)
            row["pass"] = (row["page_whole"] and row["passages_whole"] and row["search_whole_own_file"]
                           and (match == "exact" or (match == "normalised" and row["wrapped"]))
                           and not row["listed_hidden"])
            row["pass_exact_only"] = row["pass"] and match == "exact"  # the earlier sets' rule, for comparison
        rows.append(row)
    return rows, build_cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", dest="which", choices=sorted(SETS), default="second", help="which adversarial set")
    ap.add_argument("--half", choices=("tuning", "held_out", "all", "written_after"), default="held_out",
                    help="written_after: a set's cases written after its first run (WRITTEN_AFTER), if any")
    ap.add_argument("--only", nargs="*", default=[], help="case names to run (default: the whole half)")
    ap.add_argument("--json", type=Path, help="write the rows here")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    import importlib

    cases = importlib.import_module(SETS[args.which])
    HELD_OUT, TUNING, checksum = cases.HELD_OUT, cases.TUNING, cases.checksum

    names = {"tuning": list(TUNING), "held_out": list(HELD_OUT), "all": list(TUNING) + list(HELD_OUT),
             "written_after": list(getattr(cases, "WRITTEN_AFTER", ()))}[args.half]
    if args.only:
        names = [n for n in names if n in args.only]
    with tempfile.TemporaryDirectory(prefix="hidden-heldout-") as tmp:
        rows, build_cpu = evaluate(names, Path(tmp), args.which)
    for r in rows:
        flags = " ".join(k for k in ("page", "search", "passages", "listed_hidden") if r[k])
        print(f"{'VOID' if r.get('void') else 'PASS' if r['pass'] else 'FAIL'}  {r['kind']:7} {r['case']:30} verify={r['verify']!s:10} "
              f"layer={'y' if r['text_layer'] else 'n'} found:[{flags}] listed={','.join(r['listed_reasons'])}")
    summary = {"set": args.which, "half": args.half, "set_checksum": checksum(), "build_cpu_s": round(build_cpu, 1)}
    for kind in ("hidden", "printed"):
        sub = [r for r in rows if r["kind"] == kind]
        summary[kind] = {"cases": len(sub), "pass": sum(r["pass"] for r in sub),
                         "fail": [r["case"] for r in sub if not r["pass"]],
                         "void": [r["case"] for r in sub if r.get("void")]}
        if kind == "printed":
            summary[kind]["pass_exact_only"] = sum(r["pass_exact_only"] for r in sub)
    tp = sum(r["pass"] and not r.get("void") for r in rows if r["kind"] == "hidden")
    fn = sum(not r["pass"] for r in rows if r["kind"] == "hidden")
    fp = sum(not r["pass"] for r in rows if r["kind"] == "printed")
    # hidden text is the positive class: recall = hidden sentences kept out, precision = of the
    # sentences kept out, the share that were hidden (a printed control lost is a false positive)
    summary["recall"] = round(tp / (tp + fn), 3) if tp + fn else None
    summary["precision"] = round(tp / (tp + fp), 3) if tp + fp else None
    summary["printed_text_layer_lacks"] = [r["case"] for r in rows if r["kind"] == "printed" and not r["text_layer"]]
    print(json.dumps(summary, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "rows": rows}, ensure_ascii=False, indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
