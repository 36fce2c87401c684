#!/bin/sh
# A launcher as training jobs have (tests/sh/python_memory.sh): not
# python itself, it execs the interpreter on tests/progs/py_deep.py, so
# only the stopped process's memory says it is Python.
echo "launching py_deep.py"
PY=${PY_LAUNCH_PYTHON:-python3}
exec "$PY" "$(dirname "$0")/py_deep.py" "$@"
