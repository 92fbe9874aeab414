#!/usr/bin/python3
"""LibreOffice oracle for the .ods (and .xlsb) corpus.

LibreOffice (Debian's libreoffice-calc-nogui, headless) opens every
FORMAT/files/* and saves it as .xlsx, keeping its own reading of each cell:
its type, its value, its number format, merged ranges and hidden sheets.
openpyxl (load_workbook(data_only=True)) then reads that .xlsx. For every
file this writes FORMAT/oracle/<file>.json in oracle_xls.py's shape: each
worksheet's title, state, merged-range count and rows with trailing empty
cells trimmed and empty rows skipped, as {"r": 1-based row, "v": [...]}.

Values: text, numbers, booleans, errors by their names, dates and times as
ISO-8601 (a time of day as HH:MM:SS), an elapsed time as
{"timedelta_s": seconds}, empty as null. A file LibreOffice cannot open
gets {"ok": false, "error"}.
Usage: oracle_lo.py FORMAT [--again]   (ods or xlsb; --again redoes files already answered)
"""
import datetime
import glob
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import warnings

import openpyxl
import openpyxl.reader.excel

# Charts and images are no cells, and openpyxl fails on some of
# LibreOffice's charts.
openpyxl.reader.excel.find_images = lambda *a, **k: ([], [])

# LibreOffice writes an empty print-titles or print-area name for some
# .xlsb files, on which openpyxl fails; print settings are no cells.
import openpyxl.reader.workbook as _rw

_titles, _area = _rw._unpack_print_titles, _rw._unpack_print_area
_rw._unpack_print_titles = lambda d: _titles(d) if d.value else (None, None)
_rw._unpack_print_area = lambda d: _area(d) if d.value else []


def conv(v):
    if isinstance(v, datetime.datetime):
        return v.isoformat()
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, datetime.timedelta):
        return {"timedelta_s": v.total_seconds()}
    return v


def view(src, xlsx):
    res = {"file": os.path.basename(src), "oracle": "LibreOffice " + lo_version() + " to .xlsx, openpyxl " + openpyxl.__version__}
    if not os.path.exists(xlsx):
        res["ok"] = False
        res["error"] = "LibreOffice could not open or convert it"
        return res
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wb = openpyxl.load_workbook(xlsx, data_only=True)
    res["ok"] = True
    sheets = []
    for ws in wb.worksheets:
        out = {"title": ws.title, "state": ws.sheet_state, "merged": len(ws.merged_cells.ranges)}
        byrow = {}
        for (r, c), cell in ws._cells.items():
            if cell.value is not None:
                byrow.setdefault(r, {})[c] = cell.value
        rows = []
        for r in sorted(byrow):
            cols = byrow[r]
            vals = [None] * max(cols)
            for c, v in cols.items():
                vals[c - 1] = conv(v)
            rows.append({"r": r, "v": vals})
        out["rows"] = rows
        sheets.append(out)
    res["sheets"] = sheets
    return res


_version = None

NO_RECALC = '''<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse"><value>1</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>1</value></prop></item>
</oor:items>
'''


def limit():
    # A hostile file (calamine's issue_594_dos.ods) makes LibreOffice grow
    # past the machine's memory: cap it, and its time.
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def convert(profile, conv_dir, src):
    p = subprocess.Popen(["soffice", "-env:UserInstallation=" + profile, "--headless", "--norestore",
                          "--convert-to", "xlsx", "--outdir", conv_dir, src],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                         start_new_session=True, preexec_fn=limit)
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def lo_version():
    global _version
    if _version is None:
        out = subprocess.run(["soffice", "--version"], capture_output=True, text=True).stdout.split()
        _version = out[1] if len(out) > 1 else "?"
    return _version


def main():
    fmt = sys.argv[1] if len(sys.argv) > 1 else "ods"
    here = os.path.dirname(os.path.abspath(__file__))
    files = sorted(glob.glob(os.path.join(here, fmt, "files", "*")))
    outdir = os.path.join(here, fmt, "oracle")
    os.makedirs(outdir, exist_ok=True)
    tmp = tempfile.mkdtemp()
    try:
        profile = "file://" + os.path.join(tmp, "profile")
        # Never recalculate on load: the oracle is LibreOffice's reading
        # of the values the file stores, as ours is.
        os.makedirs(os.path.join(tmp, "profile", "user"))
        with open(os.path.join(tmp, "profile", "user", "registrymodifications.xcu"), "w") as fh:
            fh.write(NO_RECALC)
        conv_dir = os.path.join(tmp, "out")
        for p in files:
            out = os.path.join(outdir, os.path.basename(p) + ".json")
            if os.path.exists(out) and "--again" not in sys.argv:
                continue
            # One file a run: a file LibreOffice cannot open (encrypted,
            # corrupt) must not stop the others.
            src = os.path.join(tmp, "in" + os.path.splitext(p)[1])
            shutil.copy(p, src)
            convert(profile, conv_dir, src)
            xlsx = os.path.join(conv_dir, "in.xlsx")
            r = view(p, xlsx)
            if os.path.exists(xlsx):
                os.remove(xlsx)
            with open(out, "w", encoding="utf-8") as fh:
                json.dump(r, fh, ensure_ascii=False, indent=0)
            print(r["file"], "ok" if r["ok"] else "REFUSED " + r["error"], flush=True)
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
