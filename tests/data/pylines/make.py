# Writes the line-table vectors of tests/unit/test_pymem.c for the
# Python that runs it: python3.N make.py > py3N.txt.  Each code object
# of the sample below (and of the functions nested in it) gives one
# "code" block: its first line, its co_linetable in hex, and the line of
# every 2-byte code unit as the interpreter itself computes it
# (co_positions in 3.11 and later, co_lines in 3.10), -1 for none.
import sys

SAMPLE = '''
def f(a, b):
    x = [i * 2
         for i in range(a)
         if i % 3]
    try:
        y = a / b
    except ZeroDivisionError:
        y = 0
    while a > 0:
        a -= 1
        if a == 5:
            break
    return (x,
            y,
            a)


class K:
    def m(self, v):
        return {k: v for k in range(v)
                if k}
''' + "\n" * 300 + '''
def far(z):
    return z + 1
'''


def lines_310(co):
    out = [-1] * (len(co.co_code) // 2)
    for start, end, line in co.co_lines():
        for off in range(start, end, 2):
            out[off // 2] = -1 if line is None else line
    return out


def lines_311(co):
    return [-1 if p[0] is None else p[0] for p in co.co_positions()]


def walk(co):
    yield co
    for c in co.co_consts:
        if hasattr(c, "co_code"):
            yield from walk(c)


top = compile(SAMPLE, "sample.py", "exec")
for co in walk(top):
    lines = lines_311(co) if sys.version_info >= (3, 11) else lines_310(co)
    print("code", co.co_name, co.co_firstlineno, co.co_linetable.hex())
    print("lines", " ".join(str(n) for n in lines))
