#!/usr/bin/python3
"""Baseline for bench.sh: read every row of the first sheet (or, with
--all, of every worksheet; with --sheet NAME, of that one) with openpyxl in read-only mode (values only,
cached formula values), as the reference tool's users would for a large
workbook.

  openpyxl_read.py BOOK.xlsx [--all | --sheet NAME]
"""
import sys

import openpyxl

wb = openpyxl.load_workbook(sys.argv[1], read_only=True, data_only=True)
args = sys.argv[2:]
if "--all" in args:
    sheets = wb.worksheets
elif "--sheet" in args:
    sheets = [wb[args[args.index("--sheet") + 1]]]
else:
    sheets = wb.worksheets[:1]
rows = cells = 0
for ws in sheets:
    for row in ws.iter_rows(values_only=True):
        rows += 1
        cells += sum(1 for v in row if v is not None)
wb.close()
print(rows, cells)
