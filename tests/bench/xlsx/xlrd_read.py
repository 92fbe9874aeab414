#!/usr/bin/python3
"""Baseline for formats.sh: read every row of the first sheet of an .xls
with xlrd (Debian's python3-xlrd), values only, as its users read one.

  xlrd_read.py BOOK.xls
"""
import os
import sys

import xlrd

wb = xlrd.open_workbook(sys.argv[1], on_demand=True, logfile=open(os.devnull, "w"))
sh = wb.sheet_by_index(0)
rows = cells = 0
for r in range(sh.nrows):
    rows += 1
    cells += sum(1 for v in sh.row_values(r) if v != "")
print(rows, cells)
