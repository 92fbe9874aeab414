#!/usr/bin/python3
"""Differential check of the xlsx plugin against openpyxl on random workbooks.

openpyxl writes a workbook of 300 x 5 random cells (decimals, integers,
fractions of a day, strings, booleans) under 19 number formats (dates,
elapsed times, quoted literals, locale and colour brackets, escaped letters),
in the 1900 or 1904 date system; the plugin's CLI reads it back; every cell
must equal openpyxl's own reading (elapsed times compared in seconds).

  tests/bench/xlsx/differential.py XLSX_BINARY [SEEDS]   # needs python3-openpyxl
Exit 1 on any difference.
"""
import datetime
import json
import os
import random
import re
import subprocess
import sys
import tempfile

import openpyxl

FORMATS = ["General", "0", "0.00", "yyyy-mm-dd", "[h]:mm:ss", "mm:ss.0", "\"d\"0", "[Red]0.00",
           "h:mm AM/PM", "[$-409]mmmm d, yyyy", "\\d0", "dd/mm/yyyy hh:mm", "[HH]:MM", "0.00E+00",
           "#,##0", "m/d/yy", "[mm]:ss", "ss", "yyyy\"年\"m\"月\"", "@"]


def conv(v):
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, datetime.timedelta):
        return ("seconds", v.total_seconds())
    return "" if v is None else v


def seconds(s):
    m = re.match(r'^(-?)PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$', s)
    if not m:
        return None
    v = int(m.group(2) or 0) * 3600 + int(m.group(3) or 0) * 60 + float(m.group(4) or 0)
    return -v if m.group(1) else v


def run(binary, seed, epoch, folder):
    rnd = random.Random(seed)
    path = os.path.join(folder, f"random-{seed}-{epoch}.xlsx")
    wb = openpyxl.Workbook()
    if epoch == 1904:
        wb.epoch = openpyxl.utils.datetime.CALENDAR_MAC_1904
    ws = wb.active
    for r in range(1, 301):
        for c in range(1, 6):
            k = rnd.random()
            if k < 0.45:
                v = round(rnd.uniform(-100, 80000), rnd.choice([0, 1, 2, 5, 9, 12]))
            elif k < 0.7:
                v = rnd.randint(-100, 80000)
            elif k < 0.8:
                v = rnd.random()
            elif k < 0.9:
                v = rnd.choice(["x", " y ", "", "a_b"])
            else:
                v = rnd.choice([True, False])
            ws.cell(row=r, column=c, value=v).number_format = rnd.choice(FORMATS)
    wb.save(path)
    theirs = []
    for row in openpyxl.load_workbook(path, data_only=True).worksheets[0].iter_rows(values_only=True):
        row = list(row)
        while row and row[-1] is None:
            row.pop()
        if row:
            theirs.append([conv(v) for v in row])
    out = subprocess.run([binary, "read-sheet", "--path", path, "--max-results", "100000"],
                         capture_output=True, text=True, env={**os.environ, "XLSX_ROOTS": folder}, check=True)
    ours = json.loads(out.stdout)["rows"]
    bad = 0 if len(ours) == len(theirs) else 1
    for i, (a, b) in enumerate(zip(ours, theirs)):
        for j, (x, y) in enumerate(zip(a, b)):
            if isinstance(y, tuple):
                ok = isinstance(x, str) and seconds(x) is not None and abs(seconds(x) - y[1]) < 1e-6
            else:
                ok = x == y and type(x) is type(y)
            if not ok or len(a) != len(b):
                bad += 1
                print(f"seed {seed} epoch {epoch} row {i + 1} col {j + 1}: ours {x!r}, openpyxl {y!r}")
    return bad


def main():
    binary = os.path.abspath(sys.argv[1])
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    with tempfile.TemporaryDirectory() as folder:
        bad = sum(run(binary, s, e, folder) for s in range(1, seeds + 1) for e in (1900, 1904))
    print(f"{seeds * 2} random workbooks, {seeds * 2 * 1500} cells: {bad} differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
