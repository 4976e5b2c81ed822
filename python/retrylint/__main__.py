"""``python -m retrylint …`` runs the installed binary with the same arguments."""

from __future__ import annotations

import os
import subprocess
import sys

from retrylint import find_retrylint_bin


def main() -> int:
    try:
        binary = find_retrylint_bin()
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    args = [binary, *sys.argv[1:]]
    if sys.platform == "win32":
        # No exec on Windows: run it and pass its exit status on.
        return subprocess.run(args).returncode
    os.execv(binary, args)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
