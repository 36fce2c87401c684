# No #! line: execvp() and every shell hand this file to /bin/sh, and
# so does cudbg-tui (issue 29 item 3); gdb alone says "No executable file
# specified".  It execs python on torch_label.py (the same device assert).
cd "$(dirname "$0")" || exit 1
exec python3 torch_label.py "$@"
