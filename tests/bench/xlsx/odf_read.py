#!/usr/bin/python3
"""Baseline for formats.sh: read every row of the first sheet of an .ods
with odfpy (Debian's python3-odf), values only, as pandas' read_excel(engine
"odf") reads one: each cell's typed value, strings as their text.

  odf_read.py BOOK.ods
"""
import sys

from odf.namespaces import OFFICENS, TABLENS
from odf.opendocument import load
from odf.table import Table, TableRow

doc = load(sys.argv[1])
table = doc.spreadsheet.getElementsByType(Table)[0]
KEYS = {"float": "value", "percentage": "value", "currency": "value", "date": "date-value",
        "time": "time-value", "boolean": "boolean-value"}
rows = cells = 0
for row in table.getElementsByType(TableRow):
    reps = int(row.attributes.get((TABLENS, "number-rows-repeated"), 1))
    vals = []
    for cell in row.childNodes:
        n = int(cell.attributes.get((TABLENS, "number-columns-repeated"), 1))
        vt = cell.attributes.get((OFFICENS, "value-type"))
        if vt == "string":
            v = str(cell)
        elif vt in KEYS:
            v = cell.attributes.get((OFFICENS, KEYS[vt]))
        else:
            v = None
        vals.extend([v] * min(n, 16384))
    while vals and vals[-1] is None:
        vals.pop()
    if vals:
        rows += reps
        cells += reps * sum(1 for v in vals if v is not None)
print(rows, cells)
