#!/usr/bin/python3
"""xlrd oracle for the .xls corpus (Debian's python3-xlrd, 1.2.0).

For every xls/files/*.xls writes xls/oracle/<file>.json: xlrd's view with
open_workbook(path, formatting_info=True) (so merged ranges are known;
without it when xlrd refuses formatting info), each worksheet's title,
visibility, nrows x ncols, merged-range count, and its rows with trailing
empty cells trimmed and empty rows skipped, each as {"r": 1-based row,
"v": [...]}.

Values: text as str, numbers as JSON numbers (xlrd reads every number as a
float), booleans, errors by their Excel names (#DIV/0!), dates and times as
ISO-8601 (a value below 1 as a time of day, as the plugin gives it), empty
and blank cells as null. A file xlrd refuses gets {"ok": false, "error"}.
Usage: oracle_xls.py [files_dir] [out_dir]
"""
import datetime
import glob
import json
import os
import subprocess
import sys

import xlrd

DEVNULL = open(os.devnull, "w")
STATES = {0: "visible", 1: "hidden", 2: "veryHidden"}


def conv(cell, datemode):
    t, v = cell.ctype, cell.value
    if t in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
        return None
    if t == xlrd.XL_CELL_BOOLEAN:
        return bool(v)
    if t == xlrd.XL_CELL_ERROR:
        return xlrd.error_text_from_code.get(v, "#ERR%d!" % v)
    if t == xlrd.XL_CELL_DATE:
        try:
            if 0 <= v < 1:
                return (datetime.datetime(2000, 1, 1) + datetime.timedelta(days=v)).time().isoformat()
            return xlrd.xldate.xldate_as_datetime(v, datemode).isoformat()
        except Exception as e:  # noqa: BLE001 - a date xlrd cannot hold
            return {"date_error": str(e), "serial": v}
    return v


def view(path):
    res = {"file": os.path.basename(path), "xlrd": xlrd.__VERSION__}
    try:
        try:
            wb = xlrd.open_workbook(path, formatting_info=True, on_demand=True, logfile=DEVNULL)
        except NotImplementedError:
            wb = xlrd.open_workbook(path, on_demand=True, logfile=DEVNULL)
    except Exception as e:  # noqa: BLE001 - we record every refusal
        res["ok"] = False
        res["error"] = f"{type(e).__name__}: {e}"[:500]
        return res
    res["ok"] = True
    res["datemode"] = wb.datemode
    sheets = []
    for i, name in enumerate(wb.sheet_names()):
        try:
            sh = wb.sheet_by_index(i)
        except Exception as e:  # noqa: BLE001
            sheets.append({"title": name, "error": f"{type(e).__name__}: {e}"[:300]})
            continue
        out = {"title": name, "state": STATES.get(sh.visibility, str(sh.visibility)),
               "nrows": sh.nrows, "ncols": sh.ncols, "merged": len(sh.merged_cells)}
        rows = []
        for r in range(sh.nrows):
            vals = [conv(c, wb.datemode) for c in sh.row(r)]
            while vals and vals[-1] is None:
                vals.pop()
            if vals:
                rows.append({"r": r + 1, "v": vals})
        out["rows"] = rows
        sheets.append(out)
        wb.unload_sheet(i)
    res["sheets"] = sheets
    return res


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        json.dump(view(sys.argv[2]), sys.stdout, ensure_ascii=False)
        return
    here = os.path.dirname(os.path.abspath(__file__))
    files = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "xls", "files")
    outdir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "xls", "oracle")
    os.makedirs(outdir, exist_ok=True)
    for p in sorted(glob.glob(os.path.join(files, "*.xls"))):
        try:
            cp = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", p],
                                capture_output=True, text=True, timeout=120)
            r = json.loads(cp.stdout) if cp.returncode == 0 else {
                "file": os.path.basename(p), "ok": False, "error": "CRASH: " + cp.stderr.strip()[-300:]}
        except subprocess.TimeoutExpired:
            r = {"file": os.path.basename(p), "ok": False, "error": "TIMEOUT"}
        with open(os.path.join(outdir, os.path.basename(p) + ".json"), "w", encoding="utf-8") as fh:
            json.dump(r, fh, ensure_ascii=False, indent=0)
        print(r["file"], "ok" if r["ok"] else "REFUSED " + r["error"][:100])


if __name__ == "__main__":
    main()
