#!/bin/sh
# Prints the Python interpreter `make` builds ./.venv with: the first of
# Python 3.12 or 3.13 found (on PATH or in a pyenv install), else python3.
# `cursor-byok proxy` runs on mitmproxy 12, which needs Python 3.12+; the
# rest of the project runs on 3.11 too.
root="${PYENV_ROOT:-$HOME/.pyenv}"
for candidate in python3.12 python3.13 "$root"/versions/3.12*/bin/python3 \
    "$root"/versions/3.13*/bin/python3; do
    if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
        echo "$candidate"
        exit 0
    fi
done
echo python3
