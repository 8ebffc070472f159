"""Scale-out writes: extraction, chunking and embedding on a Ray cluster (``pagerecall[ray]``).

:func:`pagerecall.scaleout.ray_build.index_files_ray` is the Ray Data counterpart of
:func:`pagerecall.indexing.index_files`; ``build``/``update``/``rebuild`` pick it with
``--engine ray`` (``Settings.engine``). See docs/scale-out.md.
"""

__all__ = ["index_files_ray"]


def __getattr__(name: str):  # ray is imported only when the engine is used
    if name == "index_files_ray":
        from .ray_build import index_files_ray

        return index_files_ray
    raise AttributeError(name)
