#!/bin/sh
# cudbg-tui --dap driven by a real editor client: Emacs dap-mode
# (Debian's elpa-dap-mode), headless, through tests/dap/emacs_dap.el: a
# breakpoint, a step, the end against gdb; a cuda-gdb recording's
# exception stop and hint (issue 31 item 2).
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
BUILD=${CUDBG_BUILD:-$ROOT/build}
FIX=${CUDBG_FIXTURES:-$ROOT/tests/shared/fixtures}
if ! command -v emacs >/dev/null; then
	echo "SKIP dap-mode: emacs is not installed (apt-get install emacs-nox elpa-dap-mode)"
	exit 0
fi
if ! ls -d /usr/share/emacs/site-lisp/elpa/dap-mode-* >/dev/null 2>&1; then
	echo "SKIP dap-mode: dap-mode is not installed (apt-get install elpa-dap-mode)"
	exit 0
fi
if ! command -v gdb >/dev/null; then
	echo "SKIP dap-mode: gdb is not installed"
	exit 0
fi
home=$(mktemp -d); trap 'rm -rf "$home"' EXIT
# (a private HOME: dap-mode keeps its breakpoints in ~/.emacs.d)
HOME=$home CUDBG_BIN=$BIN CUDBG_ROOT=$ROOT CUDBG_BUILD=$BUILD \
	CUDBG_FIXTURES=$FIX timeout 900 emacs --batch \
	--eval "(progn (require 'package) (package-initialize))" \
	-l "$ROOT/tests/dap/emacs_dap.el" >"$home/out" 2>&1
rc=$?
grep '^PASS\|^FAIL' "$home/out"
if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$home/out"; then
	echo "FAIL dap-mode/emacs: exit $rc:"
	tail -20 "$home/out" | sed 's/^/    /'
fi
