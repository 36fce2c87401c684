#!/bin/sh
# The death reporter's parent side (preload/death.c): a child killed by
# SIGKILL (the OOM killer) runs no handler, so the parent that reaps it
# writes reaped.PID, through whichever wait call it used, and each call
# still does exactly what the caller asked.  Python's os.wait* call
# libc's, so one script drives every wrapper:
#  - waitpid, wait, wait3, wait4, waitid, and a WNOHANG poll loop: the
#    status the caller gets is the kernel's, reaped.PID names the child,
#    its signal and the parent;
#  - a child that writes its own death (SIGSEGV with the library): no
#    reaped.PID beside its death.PID; one without the library (a cleared
#    LD_PRELOAD): reaped.PID;
#  - a clean exit and a SIGTERM: no reaped.PID (neither is a death the
#    reporter names); an _exit() gets reapexit.PID with its status, an
#    exit() that wrote exit.PID itself nothing more;
#  - WUNTRACED still returns the stop, and a tracer's plain waitpid its
#    tracee's ptrace stop; a signal handler that raises
#    still interrupts a blocking wait at once (the look before the wait
#    never swallows EINTR).
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
REAL=${CUDBG_REAL_BIN:-$BIN}
LIB=$(dirname "$REAL")/libcudbg-death.so
[ -r "$LIB" ] || { echo "FAIL death_reaper/all: no $LIB (make)"; exit 1; }
PY=$(command -v python3) || { echo "SKIP death_reaper/all: no python3"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/reap.py" <<'PY'
import os, signal, sys, time
jd = os.environ["CUDBG_JOB_DIR"]
fails = 0

def result(name, ok, why=""):
    global fails
    print(("PASS death_reaper/" + name) if ok else
          ("FAIL death_reaper/%s: %s" % (name, why)))
    fails += 0 if ok else 1

def child(action):
    pid = os.fork()
    if pid == 0:
        try:
            action()
        finally:
            os._exit(0)
    return pid

def killed():
    os.kill(os.getpid(), signal.SIGKILL)

def reaped(pid):
    p = os.path.join(jd, "reaped.%d" % pid)
    if not os.path.exists(p):
        return None
    return open(p).read()

def check_killed(name, pid, status_sig):
    text = reaped(pid)
    head = text.split("\n")[0].split() if text else []
    ok = (status_sig == signal.SIGKILL and
          head == [str(pid), str(int(signal.SIGKILL)), str(os.getpid())])
    result(name, ok, "signal %r, reaped.%d %r" % (status_sig, pid, text))

pid = child(killed)
_, st = os.waitpid(pid, 0)
check_killed("waitpid", pid, os.WTERMSIG(st) if os.WIFSIGNALED(st) else None)
# the command: read while it lived, or the zombie's comm
text = reaped(pid) or ""
cmd = text.split("\n")[1] if "\n" in text else ""
result("waitpid-command", "python" in cmd or "reap.py" in cmd, repr(cmd))

pid = child(killed)
got, st = os.wait()
check_killed("wait", pid, os.WTERMSIG(st) if got == pid and os.WIFSIGNALED(st) else None)

pid = child(killed)
got, st, ru = os.wait3(0)
check_killed("wait3", pid, os.WTERMSIG(st) if got == pid and os.WIFSIGNALED(st) else None)

pid = child(killed)
got, st, ru = os.wait4(pid, 0)
check_killed("wait4", pid, os.WTERMSIG(st) if got == pid and os.WIFSIGNALED(st) else None)

pid = child(killed)
si = os.waitid(os.P_PID, pid, os.WEXITED)
check_killed("waitid", pid, si.si_status if si and si.si_code == os.CLD_KILLED else None)

pid = child(killed)
while True:
    got, st = os.waitpid(pid, os.WNOHANG)
    if got:
        break
    time.sleep(0.01)
check_killed("wnohang", pid, os.WTERMSIG(st) if os.WIFSIGNALED(st) else None)

# its own report stands alone
pid = child(lambda: os.kill(os.getpid(), signal.SIGSEGV))
_, st = os.waitpid(pid, 0)
own = os.path.exists(os.path.join(jd, "death.%d" % pid))
result("own-report-alone", os.WTERMSIG(st) == signal.SIGSEGV and own and
       reaped(pid) is None, "death.%d %s, reaped %r" % (pid, own, reaped(pid)))

# no library in the child: the parent writes the fault too
env = dict(os.environ)
env.pop("LD_PRELOAD", None)
pid = os.spawnve(os.P_NOWAIT, "/bin/sh", ["sh", "-c", "kill -SEGV $$"], env)
_, st = os.waitpid(pid, 0)
text = reaped(pid) or ""
result("no-library-child", os.WTERMSIG(st) == signal.SIGSEGV and
       text.startswith("%d %d " % (pid, signal.SIGSEGV)) and
       "\nsh" in text, repr(text))

# nothing for a clean exit or a SIGTERM
pid = child(lambda: None)
_, st = os.waitpid(pid, 0)
pid2 = child(lambda: os.kill(os.getpid(), signal.SIGTERM))
_, st2 = os.waitpid(pid2, 0)
result("not-deaths", os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0 and
       os.WTERMSIG(st2) == signal.SIGTERM and reaped(pid) is None and
       reaped(pid2) is None, "%r %r" % (reaped(pid), reaped(pid2)))

# an exit by _exit() (multiprocessing's children end so) writes no
# exit.PID of its own: the parent's wait writes reapexit.PID, its status
pid = child(lambda: os._exit(3))
_, st = os.waitpid(pid, 0)
p = os.path.join(jd, "reapexit.%d" % pid)
text = open(p).read() if os.path.exists(p) else ""
result("reapexit", os.WEXITSTATUS(st) == 3 and
       text.startswith("%d 3 %d\n" % (pid, os.getpid())), repr(text))
# one by exit() wrote exit.PID itself: nothing beside it
pid = os.spawnve(os.P_NOWAIT, sys.executable,
                 [sys.executable, "-c", "import sys; sys.exit(4)"], os.environ)
_, st = os.waitpid(pid, 0)
own = os.path.exists(os.path.join(jd, "exit.%d" % pid))
other = os.path.exists(os.path.join(jd, "reapexit.%d" % pid))
result("own-exit-alone", os.WEXITSTATUS(st) == 4 and own and not other,
       "exit.%d %s, reapexit %s" % (pid, own, other))

# WUNTRACED: the stop comes back, as without the library
pid = child(lambda: os.kill(os.getpid(), signal.SIGSTOP))
_, st = os.waitpid(pid, os.WUNTRACED)
stopped = os.WIFSTOPPED(st)
os.kill(pid, signal.SIGKILL)
_, st = os.waitpid(pid, 0)
result("wuntraced", stopped and os.WTERMSIG(st) == signal.SIGKILL,
       "stopped %s" % stopped)

# a tracer's plain waitpid returns at its tracee's ptrace stop (no
# WUNTRACED needed): the look before it must not sit through the stop
import ctypes
def traced():
    ctypes.CDLL(None).ptrace(0, 0, None, None)  # PTRACE_TRACEME
    os.kill(os.getpid(), signal.SIGSTOP)
signal.signal(signal.SIGALRM, lambda s, f: os._exit(3))
signal.alarm(10)
pid = child(traced)
_, st = os.waitpid(pid, 0)
signal.alarm(0)
stopped = os.WIFSTOPPED(st)
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
result("tracer-stop", stopped, "status %#x" % st)

# a handler that raises interrupts a blocking wait at once
class Late(Exception):
    pass
def on_alarm(sig, frame):
    raise Late()
signal.signal(signal.SIGALRM, on_alarm)
pid = child(lambda: time.sleep(20))
t0 = time.monotonic()
signal.setitimer(signal.ITIMER_REAL, 0.3)
try:
    os.waitpid(pid, 0)
    interrupted = False
except Late:
    interrupted = True
took = time.monotonic() - t0
os.kill(pid, signal.SIGKILL)
os.waitpid(pid, 0)
result("eintr", interrupted and took < 5, "interrupted %s after %.1f s" %
       (interrupted, took))
sys.exit(1 if fails else 0)
PY
mkdir "$tmp/job"
CUDBG_JOB_DIR="$tmp/job" CUDBG_JOB_EXITS=1 LD_PRELOAD="$LIB" timeout 60 "$PY" "$tmp/reap.py"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || echo "FAIL death_reaper/run: exit $rc"
# the default live mode (no CUDBG_JOB_EXITS) writes deaths only: no file
# per exit, neither the child's exit.PID nor the parent's reapexit.PID
mkdir "$tmp/live"
CUDBG_JOB_DIR="$tmp/live" LD_PRELOAD="$LIB" timeout 60 "$PY" -c '
import os, signal
for act in ("exit", "_exit", "kill"):
    pid = os.fork()
    if pid == 0:
        if act == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if act == "exit":
            raise SystemExit(0)
        os._exit(0)
    os.waitpid(pid, 0)
'
files=$(cd "$tmp/live" && ls | sed 's/\.[0-9]*$//' | sort | tr '\n' ' ')
if [ "$files" = "reaped " ]; then
	echo "PASS death_reaper/live-deaths-only"
else
	echo "FAIL death_reaper/live-deaths-only: files: $files"
fi
exit 0
