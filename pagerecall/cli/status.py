"""What the CLI prints for a write (``build``, ``update``, ``rebuild``: :func:`print_report`) and for
``info`` (:func:`print_info`), on this thread's console (:mod:`pagerecall.cli.console`)."""

from __future__ import annotations


from pagerecall.cli.names import with_shown_names
from pagerecall.cli.console import con


def print_report(rep: dict) -> None:
    """A build/update/rebuild report (``WriteReport.to_dict()``) as lines on stdout (file names with
    control characters quoted: :func:`pagerecall.cli.names.shown_name`)."""
    rep = with_shown_names(rep)
    out = con().out
    d = rep.get("delta", {})
    if rep.get("dry_run"):
        out.write("Dry run: nothing written (the index is as it was).\n")
        if rep["action"] in ("build", "rebuild"):
            out.write(f"{rep['action']} would index {d.get('added', 0)} file(s) from {rep['corpus_root']} into a new "
                      f"generation; the live one ({rep.get('previous') or 'none'}) would stay for rollback\n")
            for path in d.get("files") or []:  # README: --dry-run lists the files it would index
                out.write(f"  {path}\n")
        elif (rep.get("interrupted") or {}).get("resumable"):
            out.write(f"An update would finish the interrupted {rep['interrupted']['action']} (below) instead; the "
                      "changes on disk since the live generation:\n")
        else:
            out.write("An update would make these changes:\n")
    if rep["action"] == "update":
        moved = d.get("moved", [])
        out.write(
            f"added {len(d.get('added', []))}, changed {len(d.get('changed', []))}, moved {len(moved)}, "
            f"deleted {len(d.get('deleted', []))}, retried {len(d.get('retry', []))}, "
            f"touched {len(d.get('touched', []))}, unchanged {d.get('unchanged', 0)}\n"
        )
        for key in ("added", "changed", "deleted", "retry"):
            for p in d.get(key, []):
                out.write(f"  {key}: {p}\n")
        for m in moved:
            out.write(f"  moved: {m['from']} -> {m['to']}\n")
    if rep.get("corpus_moved"):
        mv = rep["corpus_moved"]
        out.write(f"corpus folder {'would be' if rep.get('dry_run') else 'is now'} recorded at {mv['to']} "
                  f"(was {mv['from']})\n")
    if rep.get("fulltext_rebuilt"):
        out.write(("the full-text index has an older format: update will rebuild it from the stored passages\n"
                   if rep.get("dry_run") else
                   "full-text index rebuilt in the current format from the stored passages (nothing re-embedded)\n"))
    if not rep.get("dry_run") and not rep.get("written", True):
        retried = len(d.get("retry", []))
        out.write(f"{rep['action']}: nothing changed"
                  + (f" ({retried} failed file(s) retried, failing the same way)" if retried else "")
                  + f"; no generation written, generation {rep['generation']} stays live\n")
    elif not rep.get("dry_run"):
        reused = rep.get("chunks_reused") or {}
        extra = "".join(f", {n} {what}" for what, n in (("from the interrupted run", reused.get("resume_cache")),
                                                         ("identical passages reused", reused.get("duplicates")),
                                                         ("unchanged passages reused from the live generation",
                                                          reused.get("live_generation")))
                        if n)
        out.write(
            f"{rep['action']}: generation {rep['generation']} live; {rep['files_ok']} file(s) indexed now, "
            + (f"{rep['files_vanished']} vanished while read (not failed), " if rep.get("files_vanished") else "")
            + f"{rep['chunks_embedded']} passages embedded{extra}, {rep['chunks_total']} in the index, "
            f"{rep['seconds']} s\n"
        )
    if rep.get("interrupted"):
        out.write(_interrupted_line(rep["interrupted"], rep) + "\n")
    for f in rep.get("failed", []):
        out.write(f"  FAILED {f['path']}: {f['error']} (retried on the next update)\n")
    for f in rep.get("skipped", []):
        out.write(f"  SKIPPED {f['path']}: {f['reason']} (not indexed; fix it and run pagerecall update)\n")


def _interrupted_line(it: dict, rep: dict | None = None) -> str:
    """One line about an interrupted write's leftovers (``pagerecall.index.leftovers``)."""
    what = f"{it.get('action') or 'a write'}" + (f" started {it['started']}" if it.get("started") else "")
    cache = it.get("cache") or {}
    parts = []
    if cache:
        parts.append(f"{cache.get('passages', 0)} passage(s) in {cache.get('batches', 0)} batch(es) in the resume "
                     f"cache ({cache.get('bytes', 0) / 2**20:.1f} MiB)")
    gens = it.get("partial_generations") or []
    if gens:
        parts.append("partial generation(s) " + ", ".join(f"{g['name']} ({g['bytes'] / 2**20:.1f} MiB)" for g in gens))
    left = "; ".join(parts) or "nothing cached"
    if it.get("resumed"):
        return f"interrupted {what}: resumed ({left})"
    gone = it.get("removed") or {}
    if gone.get("cache") or gone.get("generations"):
        return f"interrupted {what}: {left}; nothing to resume, removed. {it.get('next')}"
    if rep is not None and rep.get("dry_run") and it.get("resumable"):
        return f"interrupted {what}: {left}. pagerecall update would resume it (the whole corpus, only uncached passages embedded)"
    return f"interrupted {what}: {left}. {it.get('next')}"


def print_info(info: dict) -> None:
    """``Searcher.info()``: the index, its generation, model, runtime, files, failures and staleness (file
    names with control characters quoted: :func:`pagerecall.cli.names.shown_name`)."""
    info = with_shown_names(info)
    out = con().out
    out.write(f"index       {info['index_dir']}\n")
    out.write(f"generation  {info['generation']} (previous: {info.get('previous')})\n")
    out.write(f"built       {info['built_at']}\n")
    out.write(f"corpus      {info['corpus_root']}\n")
    out.write(f"model       {info['model']}\n")
    rt = info.get("embedding_runtime") or {}
    if rt:
        what = ", ".join(str(v) for v in (rt.get("graph"), rt.get("precision")) if v)  # no "None"
        out.write(f"embedded by {rt.get('runtime')} {rt.get('version') or ''}{f' ({what})' if what else ''}: "
                  f"{rt.get('reason')}\n")
    if info.get("fulltext_upgrade_pending"):
        out.write(f"full text   format {info['fulltext_schema_version']} is older; pagerecall update rebuilds it "
                  "from the stored passages (nothing re-embedded)\n")
    out.write(f"files       {info['files_indexed']} indexed, {len(info['files_failed'])} failed; "
              f"{info['pages_indexed']} pages, {info['chunks']} passages\n")
    for f in info["files_failed"]:
        out.write(f"  failed    {f['path']}: {f['error']}\n")
    ocr_missing = info.get("ocr_unavailable")
    for path, why in info["degraded_detected"].items():
        line = degraded_line(path, why, bool(ocr_missing))
        if line:
            out.write(f"  degraded  {line}\n")
    if ocr_missing:
        out.write(f"ocr         {ocr_missing['note']}\n")
    for path, pages in (info.get("unreadable_pages") or {}).items():
        out.write(f"  unreadable {path}: page(s) {', '.join(map(str, pages))} could not be read (the PDF is damaged "
                  "there): their text is unknown, not blank, and a miss there proves nothing. Next: look at them in a "
                  "PDF viewer, or repair the file and run pagerecall update\n")
    for path, pages in (info.get("blank_pages") or {}).items():
        out.write(f"  blank     {path}: page(s) {', '.join(map(str, pages))} have no text and no image (blank pages; "
                  "the other pages are unaffected)\n")
    ht = info.get("hidden_text")
    if ht:
        if ht.get("files_unknown"):
            out.write(f"hidden text unknown for {ht['files_unknown']} file(s) indexed before it was counted "
                      "(pagerecall rebuild)\n")
        else:
            why = ", ".join(f"{k} {v}" for k, v in ht["reasons"].items())
            out.write(f"hidden text {ht['files']} file(s), {ht['pages']} page(s)" + (f" ({why})" if why else "")
                      + f"; addressed to an AI agent: {ht['instruction_like_files']} file(s), "
                      f"{ht['instruction_like_pages']} page(s)\n")
    reg = info["registry"]
    out.write(f"registry    {reg.get('status')}" + (f": {reg.get('reason')}" if reg.get("reason") else "") + "\n")
    st = info["stale"]
    step = "the watcher of this index applies it in a few seconds" if st.get("watched") else "run pagerecall update"
    for k in ("changed", "added", "deleted"):
        for p in st.get(k, []):
            out.write(f"  stale     {k}: {p} ({step})\n")
    for f in st.get("skipped", []):
        out.write(f"  skipped   {f['path']}: {f['reason']} (not indexed; fix or remove it)\n")
    if info.get("interrupted"):
        out.write(f"leftovers   {_interrupted_line(info['interrupted'])}\n")
    eo = info.get("extraction_outdated")
    if eo:
        out.write(f"extraction  {eo['files']} of {eo['files_indexed']} file(s) read by an older pagerecall "
                  f"(revision {eo['oldest']}; this version reads with revision {eo['current']}); a rebuild brings:\n")
        for line in eo["changes"]:
            out.write(f"  {line}\n")
        out.write(f"  Next: {eo['next']}\n")
    bib = info.get("bibliography")
    if bib:
        out.write(f"metadata    {bib['files_with_metadata']} file(s) with bibliographic metadata\n")
        for src in bib.get("sources") or []:
            what = f"{src.get('kind')} {src.get('path') or ''}".rstrip()
            if src.get("kind") == "pdf":
                what = f"own metadata ({_read_by_format(src)}, {src.get('with_doi', 0)} with a DOI/arXiv id)"
            out.write(f"  source    {what}: {src.get('files', 0)} file(s)\n")
            for problem in src.get("problems") or []:
                out.write(f"  problem   {problem}\n")
        for src, counts in (bib.get("fields_by_source") or {}).items():
            out.write(f"  fields    {src}: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + "\n")
        if bib.get("dangling_total"):
            out.write(f"  dangling  {bib['dangling_total']} entr(y/ies) name a file not in the corpus (--json lists them)\n")


def page_ranges(pages: list[int]) -> str:
    """``[1, 2, 3, 7]`` -> ``"pages 1-3, 7"`` (``"page 4"`` for one)."""
    runs: list[list[int]] = []
    for p in sorted(set(pages)):
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    text = ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in runs)
    return f"page{'s' if len(set(pages)) != 1 else ''} {text}"


def degraded_line(path: str, why: dict, ocr_missing: bool = False) -> str:
    """One line for ``info`` about a degraded file (``why``: :func:`pagerecall.search.coverage.detected`,
    ``{status: [pages], "repaired": True}``): the file, its pages, what is wrong with them and what to
    do; ``""`` when only unreadable pages are recorded (``info`` gives those a line of their own).
    ``ocr_missing``: OCR cannot run on this machine (the next step is to install it)."""
    first = next((pages[0] for k, pages in why.items() if k in ("ocr", "image_only", "garbled") and pages), 1)
    parts, steps = [], []
    if why.get("ocr"):
        parts.append(f"{page_ranges(why['ocr'])} read by OCR (a scan): searchable, not verbatim-citable")
        steps.append(f"check a quote against the page image (pagerecall page {path} {first} --png OUT.png)")
    if why.get("image_only"):
        parts.append(f"{page_ranges(why['image_only'])} image-only with no OCR text: not searchable")
    if why.get("garbled"):
        parts.append(f"{page_ranges(why['garbled'])} with a garbled text layer: not indexed")
    if why.get("image_only") or why.get("garbled"):
        steps.append("install Tesseract, then pagerecall rebuild" if ocr_missing
                     else f"read the page image (pagerecall page {path} {first} --png OUT.png)")
    if why.get("repaired"):
        parts.append("damaged, repaired on reading: pages may miss text")
        steps.append("save it again from a PDF tool, then pagerecall update")
    if not parts:
        return ""
    return f"{path}: {'; '.join(parts)}. Next: {'; '.join(dict.fromkeys(steps))}"


def _read_by_format(src: dict) -> str:
    """How many files of each format the catalog read its own metadata from: "2 PDFs and 1 EPUB
    read" (``read`` counts PDFs and EPUBs together; ``epubs`` the EPUBs among them)."""
    epubs = int(src.get("epubs") or 0)
    pdfs = max(0, int(src.get("read") or 0) - epubs)
    parts = [f"{pdfs} PDF{'s' if pdfs != 1 else ''}"]
    if epubs:
        parts.append(f"{epubs} EPUB{'s' if epubs != 1 else ''}")
    return " and ".join(parts) + " read"
