#!/usr/bin/env python3
"""Checks JSON reports against docs/report.schema.json.

Usage: schema_check.py SCHEMA DIR

Every *.json file in DIR (the --json reports the suite's tests produced,
collected through $CUDBG_JSON_REPORTS by tests/run.sh) is validated with
the jsonschema package (Debian: python3-jsonschema, a test-only
dependency).  Prints one line `PASS schema/reports: N reports valid` when
all are, else a FAIL line for each invalid report (its first error, and
the report's start for the first few), and a SKIP line when jsonschema is
missing.  An empty DIR is a failure: the check must never pass on nothing.
A report must also be one line (docs/report-schema.md), strict UTF-8
and JSON without a member written twice.  Exit status 0 when every
report is valid, 1 otherwise.
"""
import glob
import json
import os
import sys


def no_duplicates(pairs):
    """An object hook: a member written twice is an error (json keeps the
    last one silently)."""
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError("member %r written twice" % key)
        seen[key] = value
    return seen


def reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def main():
    schema_path, folder = sys.argv[1], sys.argv[2]
    try:
        import jsonschema
    except ImportError:
        print("SKIP schema/reports: python3-jsonschema is not installed "
              "(apt-get install python3-jsonschema)")
        return 0
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    files = sorted(glob.glob(os.path.join(folder, "*.json")))
    if not files:
        print("FAIL schema/reports: no --json report was collected in %s"
              % folder)
        return 1
    bad = 0
    for path in files:
        with open(path, "rb") as f:
            raw = f.read()
        try:  # the report promises UTF-8 (U+FFFD for invalid bytes)
            text = raw.decode("utf-8", errors="strict")
            doc = json.loads(text, object_pairs_hook=no_duplicates,
                             parse_constant=reject_constant)
        except ValueError as e:  # UnicodeDecodeError is a ValueError
            print("FAIL schema/%s: not UTF-8 JSON: %s"
                  % (os.path.basename(path), e))
            bad += 1
            continue
        if text.count("\n") != 1 or not text.endswith("\n"):
            print("FAIL schema/%s: not one line (%d line ends)"
                  % (os.path.basename(path), text.count("\n")))
            bad += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            e = errors[0]
            where = "/".join(str(p) for p in e.absolute_path) or "(top)"
            print("FAIL schema/%s: %s: %s (%d errors)"
                  % (os.path.basename(path), where, e.message, len(errors)))
            if bad < 5:  # enough to see the pattern, not a flood
                print("    " + text[:400].replace("\n", "\n    "))
            bad += 1
    if bad == 0:
        print("PASS schema/reports: %d reports valid" % len(files))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
