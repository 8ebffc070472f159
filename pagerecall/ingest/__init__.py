"""Writing an index: build, update, rebuild and rollback, from source files to a verified generation.

=======================  ======================================================================
``pipeline``             :func:`build`, :func:`update`, :func:`rebuild`, :func:`rollback`:
                         scan, delta, write a generation, verify, swap
``preparing``            a source file turned into its ``files`` record and its chunks
``prefetch``             files prepared ahead of the embed loop in a worker thread
``embed_loop``           prepared files in, chunk rows with vectors out (batches, identical
                         passages embedded once)
``resume_cache``         vectors kept by a write that did not finish (resume after kill -9)
``chunking``             token-sized, page-aware, sentence-aligned chunks
``chunk_plan``           the chunk planner's buffers and cut decisions (pure)
``ray_build``            the same on a Ray cluster (``--engine ray``, ``pagerecall[ray]``)
=======================  ======================================================================

Nothing is imported here: the write path loads only when a write runs.
"""
