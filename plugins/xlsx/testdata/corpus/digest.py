#!/usr/bin/python3
"""Digest of a large openpyxl oracle file, for a fast cell-for-cell check.

The Go corpus test compares every cell with oracle/<file>.json. For an oracle
too large to decode quickly (sheetjs__large_strings: 114 MB of JSON), it reads
oracle/<file>.digest.json instead, written by this script from the full oracle
(kept beside it as <file>.json.gz): per sheet the metadata, and for each block
of 256 kept rows the sha256 of their canonical form:

  row   = str(r) + "\x1e" + "\x1f".join(cell...)
  cell  = "n" for None or "" | "b1"/"b0" | "i<int>" | "f<repr(float)>" | "s<str>"
  block = sha256("\x1d".join(rows)).hexdigest()

Usage: digest.py oracle/<file>.json.gz
"""
import gzip
import hashlib
import json
import sys

BLOCK = 256


def cell(v):
    if v is None or v == "":
        return "n"
    if isinstance(v, bool):
        return "b1" if v else "b0"
    if isinstance(v, int):
        return "i" + str(v)
    if isinstance(v, float):
        return "f" + repr(v)
    if isinstance(v, str):
        return "s" + v
    raise ValueError(f"digest cannot encode {v!r}")


def main():
    src = sys.argv[1]
    with gzip.open(src, "rt", encoding="utf-8") as fh:
        o = json.load(fh)
    out = {k: o[k] for k in ("file", "openpyxl", "ok", "epoch", "sheetnames") if k in o}
    out["sheets"] = []
    for s in o["sheets"]:
        d = {k: s[k] for k in ("title", "type", "state", "max_row", "max_column") if k in s}
        rows = s.get("indexed_rows", [])
        blocks = []
        for i in range(0, len(rows), BLOCK):
            chunk = rows[i:i + BLOCK]
            text = "\x1d".join(str(r["r"]) + "\x1e" + "\x1f".join(cell(v) for v in r["v"]) for r in chunk)
            blocks.append({"first": chunk[0]["r"], "last": chunk[-1]["r"], "n": len(chunk),
                           "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()})
        d["kept_rows"] = len(rows)
        d["blocks"] = blocks
        out["sheets"].append(d)
    dst = src[:-len(".json.gz")] + ".digest.json"
    with open(dst, "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
