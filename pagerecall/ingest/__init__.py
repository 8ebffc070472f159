"""Writing an index: build, update, rebuild and rollback, from source files to a verified generation.

=======================  ======================================================================
``pipeline``             :func:`build`, :func:`update`, :func:`rebuild`, :func:`rollback`:
                         scan, delta, write a generation, verify, swap
``preparing``            a source file turned into its ``files`` record and its chunks
``prefetch``             files prepared ahead of the embed loop in a worker thread
``write_files``          a write's files in, rows and file records out (``index_files``)
``embed_loop``           prepared files in, vectors out (batches, identical passages embedded once)
``lanes``                the int8 graph's batches side by side, one per core
``resume_cache``         vectors kept by a write that did not finish (resume after kill -9)
``chunking``             token-sized, page-aware, sentence-aligned chunks
``chunk_plan``           the chunk planner's buffers and cut decisions (pure)
``ray_build``            the same on a Ray cluster (``--engine ray``, ``pagerecall[ray]``)
=======================  ======================================================================

Nothing is imported here: the write path loads only when a write runs.
"""
