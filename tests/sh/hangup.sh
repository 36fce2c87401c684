#!/bin/sh
# The screen's terminal hangs up without a SIGHUP reaching cudbg-tui (a
# pty that is not its controlling terminal; the same as a job the shell
# did not signal when its window closed): poll reports POLLHUP on the
# key descriptor at once, for ever.  It must end as on SIGHUP, not spin
# (found in this suite: orphaned screens at 25-55% CPU for minutes).
# A replay under a pty from python3; the master closed once the screen
# shows the stop; the process must be gone within 5 s, by SIGHUP's way.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
REC=$ROOT/tests/fixtures/gpu/device_assert.mi.log
command -v python3 >/dev/null || { echo "SKIP hangup/all: python3 is not installed"; exit 0; }
out=$(python3 - "$BIN" "$REC" <<'PY'
import os, select, subprocess, sys, time
binary, rec = sys.argv[1], sys.argv[2]
m, s = os.openpty()
os.set_blocking(m, False)
env = dict(os.environ, TERM="xterm-256color")
p = subprocess.Popen([binary, "--replay", rec], stdin=s, stdout=s,
                     stderr=s, start_new_session=True, env=env)
os.close(s)
seen, t0 = b"", time.time()
while time.time() - t0 < 20 and b"stopped" not in seen:
    if select.select([m], [], [], 0.2)[0]:
        try:
            seen += os.read(m, 65536)
        except OSError:
            break
if b"stopped" not in seen:
    print("the screen never showed the stop")
    p.kill()
    sys.exit(0)
os.close(m)
try:
    rc = p.wait(timeout=5)
    print("ended %d" % rc)
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    print("still running 5 s after the hangup")
PY
)
case $out in
"ended -1"|"ended 129") echo "PASS hangup/ends" ; exit 0 ;;
*) echo "FAIL hangup/ends: $out"; exit 1 ;;
esac
