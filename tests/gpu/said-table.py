#!/usr/bin/env python3
"""What each pass said, one row a program: a markdown table from a
gpu-test.sh collect (its run/reports and run/results).

    tests/gpu/said-table.py DIR      # DIR/run/reports/NAME.PASS.txt

A cell: the diagnosis class, the kernel, the user's line (the Python
script's line when the report has one, else the location's file:line),
the culprit thread as the report gives it, the top hint's id, and the
pass's check (PASS or FAIL from results/NAME.txt).  Empty: the pass did
not run for that program or wrote nothing."""
import os
import re
import sys

PASSES = ["live", "memcheck", "core", "sancore", "report",
          "racecheck", "initcheck", "synccheck"]


def field(text, name):
    m = re.search(r"^  %s +(.*)$" % name, text, re.M)
    return m.group(1).strip() if m else ""


def cell(path, verdict):
    with open(path, errors="replace") as f:
        text = f.read()
    m = re.search(r"^cudbg-tui diagnosis: (.*)$", text, re.M)
    cls = m.group(1) if m else "(no diagnosis)"
    cls = re.sub(r"^FAULT \((.*)\)$", r"\1", cls)
    kernel = field(text, "kernel")
    line = field(text, "python")
    if line:
        line = re.sub(r" in .*", "", line.split("/")[-1])
    else:
        line = re.sub(r" \(.*", "", field(text, "location")).split("/")[-1]
    thread = field(text, "thread")
    thread = re.sub(r", device .*", "", thread)
    thread = thread.replace("block ", "b").replace("thread ", "t")
    m = re.search(r"^\[1\] .*\(([a-z0-9-]+)\)$", text, re.M)
    hint = "`%s`" % m.group(1) if m else "no hint"
    parts = [cls, kernel, line, thread, hint]
    return " · ".join(p for p in parts if p) + (" " + verdict if verdict else "")


def main():
    root = sys.argv[1]
    rep = os.path.join(root, "run", "reports")
    res = os.path.join(root, "run", "results")
    names = sorted(f[:-4] for f in os.listdir(res) if f.endswith(".txt"))
    print("| program | " + " | ".join(PASSES) + " |")
    print("| --- |" + " --- |" * len(PASSES))
    for n in names:
        verdicts = {}
        with open(os.path.join(res, n + ".txt")) as f:
            for l in f:
                m = re.match(r"(PASS|FAIL) [^/]+/(\S+?):?( |$)", l)
                if m:
                    verdicts[m.group(2)] = "✓" if m.group(1) == "PASS" else "✗"
        row = []
        for p in PASSES:
            path = os.path.join(rep, "%s.%s.txt" % (n, p))
            if os.path.exists(path) and os.path.getsize(path):
                row.append(cell(path, verdicts.get(p, "")))
            elif p == "core" and verdicts.get("coredump-run"):
                row.append("no driver coredump (run printed what the .expect pins) "
                           + verdicts["coredump-run"])
            else:
                row.append("")
        print("| %s | %s |" % (n, " | ".join(row)))


if __name__ == "__main__":
    main()
