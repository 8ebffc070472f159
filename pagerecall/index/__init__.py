"""The index on disk: generations of LanceDB + Tantivy behind one commit point.

=====================  ==================================================================
``layout``             :class:`IndexStore`: CURRENT / PREVIOUS, the writer lock, swap,
                       rollback, cleanup (write path)
``writer``             :class:`GenerationWriter`: Lance rows, Tantivy documents, indexes,
                       meta (write path)
``verification``       :class:`VerifyReport`: a finalized generation cross-checked before the
                       swap, through the read path (write path)
``snapshot``           :class:`Snapshot` (one open generation) and :class:`LiveIndex`
                       (follows CURRENT): the read path; never imports the write path
``schema``             Lance schemas, chunk ids, the schema version
``ann``                the ANN index's tuning record
``fingerprint``        what must match between an index and the code that reads it
``corpus``             the corpus on disk: scan, delta
``leftovers``          what a killed write left (resume cache, partial generations), what to run
=====================  ==================================================================

Nothing is imported here, so ``import pagerecall.index.snapshot`` loads no write-path module.
"""
