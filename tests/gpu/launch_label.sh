#!/bin/sh
# A launcher as training jobs have: not python by its name, it execs the
# interpreter on torch_label.py (the same device assert).  Only the
# stopped process's memory says it is Python (issue 28 item 1, issue 29
# item 3): the report must still name torch_label.py's line.
cd "$(dirname "$0")" || exit 1
exec python3 torch_label.py "$@"
