"""Settings are validated once: a bad value is a usage error (exit 2) naming the variable."""

from __future__ import annotations

import pytest

from pagerecall.config import Settings


@pytest.mark.parametrize("env,needle", [
    ({"PAGERECALL_THREADS": "four"}, "PAGERECALL_THREADS"),
    ({"PAGERECALL_THREADS": "0"}, "PAGERECALL_THREADS"),
    ({"PAGERECALL_OCR": "sometimes"}, "PAGERECALL_OCR"),
])
def test_bad_settings_are_a_usage_error_naming_the_variable(env, needle, tmp_path, capsys):
    from pagerecall.cli.commands import main
    from pagerecall.errors import UsageError

    with pytest.raises(UsageError, match=needle):
        Settings.from_env(env)
    import os

    old = dict(os.environ)
    os.environ.update(env)
    try:
        code = main(["info", "--index", str(tmp_path / "none")])
    finally:
        os.environ.clear()
        os.environ.update(old)
    err = capsys.readouterr().err
    assert code == 2 and needle in err and "Traceback" not in err
