# The Python stack read from memory (tests/sh/python_memory.sh): a script
# that crashes the process in C (a NULL read through ctypes) three calls
# deep, with a recursion, in the main thread or (PY_DEEP_MODE=thread) in
# a second thread while the main thread waits in join().  Expected
# innermost user frame: py_deep.py:14 in crash; run from the last line
# (py_deep.py:31), or from worker (py_deep.py:19) in the thread mode.
import ctypes
import os
import threading


def crash(n):
    if n == 0:
        return ctypes.string_at(0)
    return crash(n - 1)


def worker():
    crash(2)


def outer():
    if os.environ.get("PY_DEEP_MODE") == "thread":
        t = threading.Thread(target=worker, name="crasher")
        t.start()
        t.join()
    else:
        crash(3)


outer()
