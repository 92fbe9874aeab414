#!/usr/bin/python3
"""Writes the differential corpus's XlsxWriter and openpyxl workbooks: the
recipe of writers/main.go (integers, decimals, text with escapes and
non-ASCII, booleans, dates, date-times, times, percentages, formulas) with
each library, so the corpus test compares the plugin with openpyxl's
reading of workbooks several libraries wrote.

  writers.py OUT_DIR      # needs python3-xlsxwriter and python3-openpyxl
"""
import datetime
import os
import random
import sys

import openpyxl
import xlsxwriter

HEADERS = ["int", "decimal", "text", "bool", "date", "datetime", "time", "percent", "formula"]
FORMATS = [None, None, None, None, "yyyy-mm-dd", "yyyy-mm-dd hh:mm:ss", "h:mm", "0.0%", None]
TEXTS = ["plain", "Grüße", "日本語", "tab\there", "line\nbreak", " padded ", "a & b < c",
         "snake_case_text", "𐐅 astral", None]


def rows(seed):
    rnd = random.Random(seed)
    base = datetime.datetime(1995, 3, 1)
    for r in range(2, 152):
        yield r, [
            rnd.randrange(-1_000_000, 1_000_000),
            rnd.randrange(1_000_000) / 1000,
            rnd.choice(TEXTS),
            rnd.random() < 0.5,
            (base + datetime.timedelta(days=rnd.randrange(20_000))).date(),
            base + datetime.timedelta(seconds=rnd.randrange(20_000 * 86_400)),
            datetime.time(rnd.randrange(24), rnd.randrange(60)),
            rnd.randrange(1000) / 1000,
            f"=A{r}*2",
        ]


def with_xlsxwriter(path):
    wb = xlsxwriter.Workbook(path)
    ws = wb.add_worksheet()
    fmts = [wb.add_format({"num_format": f}) if f else None for f in FORMATS]
    ws.write_row(0, 0, HEADERS)
    for r, vals in rows(34):
        for c, v in enumerate(vals):
            if v is None:
                continue
            if isinstance(v, datetime.date) and not isinstance(v, datetime.datetime):
                v = datetime.datetime.combine(v, datetime.time())
            if c == 8:
                ws.write_formula(r - 1, c, v, None, vals[0] * 2)
            elif fmts[c] is not None:
                ws.write(r - 1, c, v, fmts[c])
            else:
                ws.write(r - 1, c, v)
    wb.close()


def with_openpyxl(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(HEADERS)
    for r, vals in rows(56):
        ws.append(vals)
        for c, f in enumerate(FORMATS):
            if f:
                ws.cell(r, c + 1).number_format = f
    wb.save(path)


if __name__ == "__main__":
    out = sys.argv[1]
    with_xlsxwriter(os.path.join(out, "differential__xlsxwriter.xlsx"))
    with_openpyxl(os.path.join(out, "differential__openpyxl.xlsx"))
