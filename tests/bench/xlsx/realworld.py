#!/usr/bin/python3
"""Read every workbook under the given folders with openpyxl and with the
xlsx plugin's CLI, and compare them cell by cell.

openpyxl's view is the corpus oracle's (load_workbook(data_only=True), not
read_only, so a too-small <dimension> does not hide cells): each
worksheet's title and every non-empty cell with its row and column. The
plugin's is list-sheets plus read-sheet of every worksheet. Values compare
after the conversions the README documents: dates as isoformat(), an
elapsed duration (ISO-8601) against openpyxl's timedelta or time in
seconds, _xHHHH_ escapes decoded, hidden cells of merged ranges left out.

Each file is counted as: agree (every cell the same), documented (differs
only by the README's intended differences), differs, ours_error (openpyxl
reads it, we refuse), both_refuse (ours too, or we list its sheets but can
read none), only_ours (openpyxl refuses, we read). A sheet whose part is
missing, which openpyxl leaves out and we list with its error, and the
cells of a sheet in an Excel 2007 beta namespace, which openpyxl does not
see, are documented.
Prints the counts and, for each differing file, its first differences.

  realworld.py XLSX_BINARY DIR... [--jobs N] [--show N]
"""
import concurrent.futures
import datetime
import json
import math
import os
import re
import subprocess
import sys
import warnings

import openpyxl

warnings.simplefilter("ignore")


def py_view(path):
    wb = openpyxl.load_workbook(path, data_only=True)
    sheets = []
    for ws in wb.worksheets:
        hidden = set()
        for rng in ws.merged_cells.ranges:
            for r in range(rng.min_row, rng.max_row + 1):
                for c in range(rng.min_col, rng.max_col + 1):
                    if (r, c) != (rng.min_row, rng.min_col):
                        hidden.add((r, c))
        cells = {}
        for (r, c), cell in ws._cells.items():
            if cell.value is not None:
                cells[(r, c)] = cell.value
                link = cell.hyperlink
                if link is not None and cell.value in (link.target, link.location):
                    # openpyxl gives an empty cell holding a hyperlink the
                    # link's target as its value.
                    hidden.add((r, c))
        sheets.append((ws.title, cells, hidden))
    return sheets


def ours(binary, path, action, *args):
    p = subprocess.run([binary, action, "--path", path, *args], capture_output=True, timeout=600)
    try:
        return json.loads(p.stdout)
    except ValueError:
        return {"error": {"code": "bad_output", "message": p.stdout[:200].decode("utf-8", "replace")}}


def our_view(binary, path):
    ls = ours(binary, path, "list-sheets")
    if "error" in ls:
        return None, ls["error"]
    sheets = []
    for s in ls["sheets"]:
        if s["type"] != "worksheet":
            continue
        if s.get("error"):
            sheets.append((s["title"], None, s["error"]))
            continue
        # Empty rows kept ([]), so a row's index is its number.
        full = ours(binary, path, "read-sheet", "--sheet", s["title"], "--max-results", "100000000", "--skip-empty", "false")
        if "error" in full:
            sheets.append((s["title"], None, full["error"].get("message", "")))
            continue
        cells = {}
        for r, row in enumerate(full.get("rows", []), start=1):
            for c, v in enumerate(row, start=1):
                if v != "":
                    cells[(r, c)] = v
        empties = set()
        for r, row in enumerate(full.get("rows", []), start=1):
            for c, v in enumerate(row, start=1):
                if v == "":
                    empties.add((r, c))
        sheets.append((s["title"], cells, empties))
    return sheets, None


DURATION = re.compile(r"^(-)?P(?:(\d+)D)?T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$")
ESCAPE = re.compile(r"_x([0-9A-Fa-f]{4})_")


def seconds(iso):
    m = DURATION.match(iso)
    if not m:
        return None
    sign, d, h, mi, s = m.groups()
    t = int(d or 0) * 86400 + int(h or 0) * 3600 + int(mi or 0) * 60 + float(s or 0)
    return -t if sign else t


def same(py, our):
    """Returns (equal, documented): documented when they differ only as
    the README says they do."""
    if isinstance(py, bool) or isinstance(our, bool):
        return py is our or py == our and type(py) is type(our), False
    if isinstance(py, (datetime.datetime, datetime.date, datetime.time)):
        if py.isoformat() == our:
            return True, False
        if isinstance(our, str) and our.startswith(("P", "-P")):
            s = seconds(our)
            if isinstance(py, datetime.datetime):
                ref = datetime.datetime(1899, 12, 30)
                return False, s is not None and abs((py - ref).total_seconds() - s) < 0.01 or s is not None and abs((py - datetime.datetime(1904, 1, 1)).total_seconds() - s) < 0.01
            if isinstance(py, datetime.time):
                return False, s is not None and abs(py.hour * 3600 + py.minute * 60 + py.second + py.microsecond / 1e6 - s) < 0.01
        return False, False
    if isinstance(py, datetime.timedelta):
        s = seconds(our) if isinstance(our, str) else None
        return False, s is not None and abs(py.total_seconds() - s) < 0.01
    if isinstance(py, float) and isinstance(our, (int, float)):
        return py == our or math.isclose(py, our, rel_tol=0, abs_tol=0) and type(our) is float, False
    if isinstance(py, int) and isinstance(our, (int, float)):
        return py == our and type(our) is int, False
    if isinstance(py, str) and isinstance(our, str):
        if py == our:
            return True, False
        return False, unescape(py) == our
    return False, False


def unescape(s):
    """Decodes _xHHHH_ escapes as Excel does: a surrogate pair is one
    character, a lone surrogate stays as written, _x005F_ is '_'."""
    out, i = [], 0
    for m in ESCAPE.finditer(s):
        if m.start() < i:
            continue
        out.append(s[i:m.start()])
        c = int(m.group(1), 16)
        i = m.end()
        if 0xD800 <= c <= 0xDBFF:
            n = ESCAPE.match(s, i)
            if n and 0xDC00 <= int(n.group(1), 16) <= 0xDFFF:
                out.append(chr(0x10000 + (c - 0xD800) * 0x400 + int(n.group(1), 16) - 0xDC00))
                i = n.end()
                continue
        out.append(m.group(0) if 0xD800 <= c <= 0xDFFF else chr(c))
    out.append(s[i:])
    return "".join(out)


def strict(path):
    """Whether the workbook is Strict OOXML, which openpyxl reads as no
    sheets."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.endswith("workbook.xml") and b"purl.oclc.org/ooxml" in z.read(n) for n in z.namelist())
    except Exception:
        return False
    return False
    return False, False


BETA = re.compile(rb'<(?:\w+:)?worksheet[^>]*xmlns(?::\w+)?="(?:http://schemas\.openxmlformats\.org/spreadsheetml/2006/\d+/main|http://schemas\.microsoft\.com/office/excel/2006/2)"')


def beta(path):
    """Whether a worksheet is in a pre-release (Excel 2007 beta) namespace,
    whose cells openpyxl does not see."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as z:
            return any(BETA.search(z.read(n)[:4096]) for n in z.namelist() if "worksheets/" in n.replace("\\", "/") and n.endswith(".xml"))
    except Exception:
        return False


def compare(binary, path):
    try:
        pv = py_view(path)
    except Exception as e:  # openpyxl refuses the file
        ov, oerr = our_view(binary, path)
        if oerr is not None or ov and all(c is None for _, c, _ in ov):
            # We list the sheets, but read none (a <!DOCTYPE> in the
            # shared strings): refused as well.
            why = oerr.get("message", "") if oerr is not None else ov[0][2]
            return "both_refuse", ["openpyxl: %s: %s" % (type(e).__name__, str(e)[:120]), "ours: %s" % str(why)[:200]]
        return "only_ours", ["openpyxl: %s: %s" % (type(e).__name__, str(e)[:120])]
    ov, oerr = our_view(binary, path)
    if oerr is not None:
        return "ours_error", ["ours: %s: %s" % (oerr.get("code"), oerr.get("message", "")[:200])]
    diffs, documented = [], []
    our_sheets = {t: (c, x) for t, c, x in ov}
    if [t for t, _, _ in pv] != [t for t, _, _ in ov]:
        line = "sheets: openpyxl %s, ours %s" % ([t for t, _, _ in pv], [t for t, _, _ in ov])
        # openpyxl leaves out a sheet whose part is missing; we list it
        # with its error (README: corpusBeyond's badfile_noWorksheets).
        listed = [t for t, c, x in ov if c is not None or "missing part" not in str(x)]
        (documented if not pv and strict(path) or listed == [t for t, _, _ in pv] else diffs).append(line)
    for title, cells, hidden in pv:
        if title not in our_sheets:
            continue
        oc, extra = our_sheets[title]
        if oc is None:
            diffs.append("%s: ours %s" % (title, extra))
            continue
        for k in sorted(set(cells) | set(oc)):
            a, b = cells.get(k), oc.get(k)
            where = "%s!%s%d" % (title, openpyxl.utils.get_column_letter(k[1]), k[0])
            if a is None and b is not None:
                (documented if k in hidden else diffs).append("%s: openpyxl None, ours %r" % (where, b))
                continue
            if b is None:
                if a == "" and k in extra:
                    continue  # "" is a value in both; read-sheet shows it as ""
                (documented if k in hidden else diffs).append("%s: openpyxl %r, ours missing" % (where, a))
                continue
            eq, doc = same(a, b)
            if not eq:
                (documented if doc else diffs).append("%s: openpyxl %r, ours %r" % (where, a, b))
    if diffs and all("openpyxl None" in d for d in diffs) and beta(path):
        documented, diffs = diffs, []
    if diffs:
        return "differs", diffs
    if documented:
        return "documented", documented
    return "agree", []


def main():
    args = sys.argv[1:]
    jobs, show = 2, 3
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i:i + 2]
    binary, dirs = args[0], args[1:]
    files = []
    for d in dirs:
        for root, _, names in os.walk(d):
            files += [os.path.join(root, n) for n in sorted(names) if n.lower().endswith((".xlsx", ".xlsm", ".xltx", ".xltm"))]
    counts, notes = {}, []
    with concurrent.futures.ProcessPoolExecutor(jobs) as ex:
        for path, (kind, lines) in zip(files, ex.map(compare, [binary] * len(files), files)):
            counts[kind] = counts.get(kind, 0) + 1
            if kind != "agree" and lines:
                notes.append((kind, path, lines))
    for kind, path, lines in sorted(notes):
        print("%s %s (%d)" % (kind, os.path.basename(path), len(lines)))
        for line in lines[:show]:
            print("    " + line)
    print("files %d: %s" % (len(files), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))


if __name__ == "__main__":
    main()
