"""The ``notes`` lane's gate: how far a document summary's cosine to a query stands above its
cosine to meaningless text, for questions a summary answers and questions it does not.

Builds the example corpus into a temporary index (or uses ``--index``), writes one document
summary per file (in English, as an agent would), and prints for each query the margin of every
summary (cosine to the query minus the largest cosine to :data:`pagerecall.search.weak.NOISE_PROBES`)
and what the lane lets through at the chosen :data:`pagerecall.ledger.notes_search.LANE_MARGIN`.

    python bench/notes_lane.py [--index DIR]

Reading: the gate must pass the summary that answers a broad question (``which of my files ...``)
in any language and keep every summary out for questions about something else and for noise.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

import _suite as suite

ROOT = suite.ROOT

SUMMARIES = {
    "en/harrow-point-manual.pdf": "The keeper's manual of Harrow Point Light: the light's character, the lamp and "
                                  "lens, the fog signal, the journal, storms and rescue, stores and water.",
    "fr/carnet-du-gardien.txt": "A French lighthouse keeper's notebook: storms, the rescue of fishermen, the "
                                "vegetable garden, supplies.",
    "de/moewenhaken-dienstanweisung.txt": "German service instructions for the Möwenhaken lighthouse: the keeper's "
                                          "duties, birds on the gallery, the fog signal, the weather book.",
    "ja/kamomegasaki-tebiki.txt": "A Japanese handbook for the Kamomegasaki lighthouse: mercury baths, earthquakes "
                                  "and tsunami, lightning rods.",
    "zh/bailujiao-dengta.txt": "A Chinese account of the Bailujiao lighthouse: typhoon warnings, signal balls, "
                               "storm shutters.",
}
ANSWERED = [  # (query, the file whose summary answers it)
    ("which of my files is a manual for lighthouse keepers?", "en/harrow-point-manual.pdf"),
    ("Welche Datei ist eine Dienstanweisung für einen Leuchtturm?", "de/moewenhaken-dienstanweisung.txt"),
    ("un carnet de gardien de phare", "fr/carnet-du-gardien.txt"),
    ("lighthouse handbook about earthquakes and tsunami", "ja/kamomegasaki-tebiki.txt"),
    ("which document covers typhoon warnings?", "zh/bailujiao-dengta.txt"),
]
UNANSWERED = ["sourdough bread recipe", "income tax law in Brazil", "quantum chromodynamics on a lattice",
              "stock market crash of 1929", "xylofrobnicated", "flibbertigibbet snorkwax", "*",
              "how to configure a Debian package"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, help="an index of examples/corpus (built in a temporary folder if absent)")
    args = ap.parse_args(argv)
    import numpy as np

    from pagerecall.config import Settings
    from pagerecall.ledger import notes_search, notes_service
    from pagerecall.search.searcher import Searcher
    from pagerecall.search.weak import NOISE_PROBES

    tmp = tempfile.TemporaryDirectory()
    index = args.index or Path(tmp.name) / "index"
    s = dataclasses.replace(Settings.from_env(), index_dir=index, corpus_root=None, degraded_registry=None)
    record = suite.start(__file__, args, s)
    if not (index / "CURRENT").exists():
        from pagerecall.ingest.pipeline import build

        build(s, ROOT / "examples" / "corpus")
    s = dataclasses.replace(s, index_dir=Path(tmp.name) / "notes-index") if args.index else s
    if args.index:  # the notes go into a copy's ledger, never into the given index
        import shutil

        shutil.copytree(index, s.index_dir)
        for f in s.index_dir.glob("ledger.sqlite*"):
            f.unlink()
    for f, text in SUMMARIES.items():
        notes_service.add_note(s, kind="summary", text=text, agent="bench", file=f)
    searcher = Searcher(s)
    emb = searcher.embedder(searcher.snapshot())
    notes_service.find_notes(s, query="embed the summaries", embedder_factory=lambda: emb)
    rows = notes_service.open_notes(s).vectors(kind="summary")
    ids_file = {n.id: n.file for n in notes_service.open_notes(s).select()[0]}
    vecs = np.stack([np.frombuffer(b, dtype=np.float32) for _, _, b, _ in rows])
    probes = np.asarray(emb.embed_queries(list(NOISE_PROBES)), dtype=np.float32)
    floor = (vecs @ probes.T).max(axis=1)
    print(f"LANE_MARGIN = {notes_search.LANE_MARGIN}")
    print("answered queries: margin of the answering summary / best other summary; lane")
    for q, want in ANSWERED:
        m = vecs @ np.asarray(emb.embed_queries([q]), dtype=np.float32)[0] - floor
        files = [ids_file[r[0]] for r in rows]
        mine = float(m[files.index(want)])
        other = max(float(x) for x, f in zip(m, files) if f != want)
        lane = [n.file for n in notes_search.notes_lane(s, q, emb)]
        print(f"  {mine:+.3f} / {other:+.3f}  lane={lane}  {q!r}")
    print("unanswered queries: best margin; lane")
    for q in UNANSWERED:
        m = vecs @ np.asarray(emb.embed_queries([q]), dtype=np.float32)[0] - floor
        lane = [n.file for n in notes_search.notes_lane(s, q, emb)]
        print(f"  {float(m.max()):+.3f}  lane={lane}  {q!r}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
