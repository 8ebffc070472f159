"""Progress of ``build``, ``update`` and ``rebuild`` on stderr: tqdm bars on a terminal, log lines
in a log."""

from __future__ import annotations

import logging
import sys
import time

log = logging.getLogger("pagerecall")


class Bars:
    """Renders ``progress(stage, done, total)`` callbacks: tqdm bars on a terminal; in a log
    (stderr not a TTY) a line per 10 % of the files, and during embedding a line at least every
    :data:`LOG_EVERY` seconds with the passages done, the rate and an ETA (without them a big file
    was 20 silent minutes). For ``"passages"`` the total is the passages known so far (it
    grows file by file), so the ETA is for the file(s) being embedded."""

    LOG_EVERY = 30.0
    """Seconds between embedding log lines. The callback comes after every
    ``indexing.EMBED_GROUP`` passages (256: 6-13 s at the measured 20-41 passages/s), so a
    line is written within a group's time after each 30 s mark."""

    def __init__(self, quiet: bool, tty: bool | None = None, clock=None) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty() if tty is None else tty
        self.bars: dict = {}
        self._clock = clock or time.monotonic
        self._start: tuple[float, int] | None = None  # (time, passages) of the first callback
        self._last_log = 0.0
        self._files = (0, 0)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.quiet or stage == "scan":
            return
        if not self.tty:
            if stage == "files":
                self._files = (done, total)
                if total and (done == total or done * 10 // total != (done - 1) * 10 // total):
                    log.info("%d/%d files", done, total)
            elif stage == "passages":
                self._log_passages(done, total)
            return
        from tqdm import tqdm

        bar = self.bars.get(stage)
        if bar is None:
            unit = "file" if stage == "files" else "passage"
            bar = self.bars[stage] = tqdm(total=total or None, unit=unit, desc=stage, file=sys.stderr,
                                          disable=None, dynamic_ncols=True, position=len(self.bars))
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    def _log_passages(self, done: int, total: int) -> None:
        now = self._clock()
        if self._start is None:
            self._start, self._last_log = (now, done), now
            return
        if now - self._last_log < self.LOG_EVERY:
            return
        self._last_log = now
        t0, d0 = self._start
        rate = (done - d0) / (now - t0) if now > t0 else 0.0
        msg = f"{done:,} passages embedded, {rate:.1f}/s"
        if total > done and rate > 0:
            msg += f"; {total - done:,} left in the current file(s), about {_duration((total - done) / rate)}"
        files_done, files_total = self._files
        if files_total:
            msg += f"; {files_done}/{files_total} files read"
        log.info("%s", msg)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def _duration(seconds: float) -> str:
    """``95`` -> ``"1 min 35 s"``; ``3700`` -> ``"1 h 2 min"``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"
