#!/bin/sh
# docs/dap.md's editor configurations (VS Code launch.json, nvim-dap,
# Emacs dap-mode, Helix) use only launch/attach arguments the server
# reads (issue 31 item 2): every key of every configuration is one that
# dap/requests.c takes from the request's arguments, or one the editor
# itself consumes (type, request, name).  A renamed argument fails here.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP dap_docs: python3 not installed"; exit 0; }
python3 - "$ROOT/docs/dap.md" "$ROOT/dap/requests.c" <<'PY'
import re, sys
doc = open(sys.argv[1]).read()
src = open(sys.argv[2]).read()
server = set(re.findall(r'dj_[a-z]+\(a, "([A-Za-z_]+)"', src))
editor = {"type", "request", "name"}
blocks = re.findall(r'```(\w+)\n(.*?)```', doc, re.S)
found = {}
def add(kind, keys):
    found.setdefault(kind, set()).update(keys)
for lang, body in blocks:
    if lang == "json" and '"configurations"' in body:
        conf = body[body.index('"configurations"'):]
        for obj in re.findall(r'\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}', conf):
            if '"request"' in obj:
                inner = re.sub(r'"env": \{[^}]*\}', '"env": 0', obj)
                add("vscode", re.findall(r'"([A-Za-z_]+)":', inner))
    elif lang == "lua":
        for tab in re.findall(r"\{ type = 'cudbg'.*?\n  \}|\{ type = 'cudbg'[^\n]*\n[^\n]*\}", body, re.S):
            add("nvim", re.findall(r"(?:^|[{,]\s*|\n\s*)([A-Za-z_]+) =", tab))
    elif lang == "elisp":
        for lst in re.findall(r'\(list (.*?)\)\)', body, re.S):
            add("emacs", re.findall(r':([A-Za-z_-]+)', lst))
    elif lang == "toml":
        for a in re.findall(r'args = \{ ((?:[^{}]|\{\d\})*) \}', body):
            add("helix", re.findall(r'([A-Za-z_]+) =', a))
bad = 0
for kind in ("vscode", "nvim", "emacs", "helix"):
    keys = found.get(kind, set())
    if not keys:
        print("FAIL dap_docs/%s: no configuration found in docs/dap.md" % kind)
        bad += 1
        continue
    unknown = sorted(k for k in keys if k not in server | editor)
    if unknown:
        print("FAIL dap_docs/%s: keys the server does not read: %s" % (kind, ", ".join(unknown)))
        bad += 1
    else:
        print("PASS dap_docs/%s (%d keys)" % (kind, len(keys)))
sys.exit(1 if bad else 0)
PY
