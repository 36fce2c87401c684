#!/bin/sh
# Round three of the hardening (issue 33) where a case needs another user:
# an unreadable $HOME that holds no config file is no config, not a
# reason to stop (item 8); a config file that is there but unreadable
# still is one.  Root reads everything, so the cases run as nobody
# (setpriv).
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
FIX=${CUDBG_FIXTURES:-$ROOT/../shared/fixtures}
fails=0
pass() { echo "PASS hardening3/$1"; }
fail() { echo "FAIL hardening3/$1: $2"; fails=$((fails + 1)); }

if [ "${CUDBG_UNDER_VALGRIND:-0}" = 1 ]; then
	echo "SKIP hardening3/all: as nobody, valgrind cannot write its log in root's directory (the plain and asan passes judge it)"
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	echo "SKIP hardening3/all: needs root and setpriv to run as another user"
	exit 0
fi
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if ! as_nobody test -x "$BIN" || ! as_nobody test -r "$FIX/null_write.mi.log"; then
	echo "SKIP hardening3/all: nobody cannot reach $BIN or the fixtures here"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
# a home nobody may not search (root's, mode 0700), with no config
mkdir -m 700 "$tmp/home"
c=config_home_unreadable
as_nobody env -u CUDBG_CONFIG -u XDG_CONFIG_HOME HOME="$tmp/home" \
	timeout 60 "$BIN" --batch --replay "$FIX/null_write.mi.log" \
	>"$tmp/$c.out" 2>"$tmp/$c.err" </dev/null
rc=$?
if [ $rc -ne 1 ] || grep -q 'config' "$tmp/$c.err"; then
	fail $c "rc=$rc: $(head -c 300 "$tmp/$c.err")"
else
	pass $c
fi
# a config that exists but cannot be read: still said, exit 2
mkdir -p "$tmp/home2/.config/cudbg-tui"
chmod -R 755 "$tmp/home2"
echo "memcheck = never" >"$tmp/home2/.config/cudbg-tui/config"
chmod 000 "$tmp/home2/.config/cudbg-tui/config"
c=config_file_unreadable
as_nobody env -u CUDBG_CONFIG -u XDG_CONFIG_HOME HOME="$tmp/home2" \
	timeout 60 "$BIN" --batch --replay "$FIX/null_write.mi.log" \
	>"$tmp/$c.out" 2>"$tmp/$c.err" </dev/null
rc=$?
if [ $rc -ne 2 ] || ! grep -q 'cannot read the config file: Permission denied' "$tmp/$c.err"; then
	fail $c "rc=$rc: $(head -c 300 "$tmp/$c.err")"
else
	pass $c
fi
exit $fails
