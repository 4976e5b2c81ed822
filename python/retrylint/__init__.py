"""retrylint: finds idempotency keys that change between retries in Java code.

The wheel carries the compiled ``retrylint`` binary in its scripts directory; this package only
finds it, so that ``python -m retrylint`` works where the scripts directory is not on ``PATH``.
"""

from __future__ import annotations

import os
import sys
import sysconfig

__all__ = ["find_retrylint_bin"]


def find_retrylint_bin() -> str:
    """The path of the ``retrylint`` binary installed with this package."""
    exe = "retrylint" + (sysconfig.get_config_var("EXE") or "")
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(sysconfig.get_path("scripts"), exe)]
    # A `pip install --user` puts scripts under the user scheme.
    user_scheme = {"nt": "nt_user", "posix": "posix_user"}.get(os.name)
    if sys.version_info >= (3, 10):
        user_scheme = sysconfig.get_preferred_scheme("user")
    if user_scheme:
        try:
            candidates.append(os.path.join(sysconfig.get_path("scripts", scheme=user_scheme), exe))
        except KeyError:
            pass
    # `pip install --target DIR` puts the package in DIR and scripts in DIR/bin.
    candidates.append(os.path.join(os.path.dirname(here), "bin", exe))
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "the retrylint binary was not found next to the Python package "
        f"(looked in: {', '.join(candidates)}); reinstall it with `pip install retrylint`"
    )
