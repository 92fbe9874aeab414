#!/usr/bin/python3
"""Writes one workbook per function the xlsx plugin computes, with openpyxl
(Debian's python3-openpyxl), which stores formulas without cached values:
generated__NAME.xlsx in the folder given (default files/). Each has the same
data in A1:D8 and the function's cases in column F, one per row, plus a few
operator cases in generated__operators.xlsx. LibreOffice computes them for
the oracle (see ../../internal/formula/oracle_test.go).

    /usr/bin/python3 generate.py files
"""
import datetime
import os
import sys

import openpyxl

DATA = [
    # A: numbers   B: text      C: mixed     D: dates
    (1, "apple", True, datetime.date(2020, 1, 31)),
    (2.5, "Banana", "7", datetime.date(1999, 12, 31)),
    (-3, "cherry", 3, datetime.date(2024, 2, 29)),
    (0, "apple", False, datetime.datetime(2021, 6, 15, 13, 30, 15)),
    (10, "", None, datetime.date(1904, 3, 1)),
    (7, "date 2", 2, datetime.date(2000, 1, 1)),
    (0.1, "  two  spaces ", "x", datetime.date(2038, 1, 19)),
    (100, "Apple", 4.5, datetime.date(1901, 1, 1)),
]

CASES = {
    "SUM": ["SUM(A1:A8)", "SUM(A1,A2,3)", "SUM(C1:C8)", "SUM(A1:A8,C1:C8)", "SUM(1,\"2\",TRUE)", "SUM(A:A)", "SUM(A1:A3)*2"],
    "PRODUCT": ["PRODUCT(A1:A3)", "PRODUCT(A1:A8)", "PRODUCT(2,3,4)", "PRODUCT(C1:C8)"],
    "SUMSQ": ["SUMSQ(A1:A8)", "SUMSQ(3,4)"],
    "AVERAGE": ["AVERAGE(A1:A8)", "AVERAGE(C1:C8)", "AVERAGE(1,2,TRUE)", "AVERAGE(B1:B8)"],
    "MIN": ["MIN(A1:A8)", "MIN(C1:C8)", "MIN(B1:B8)", "MIN(5,3,\"1\")"],
    "MAX": ["MAX(A1:A8)", "MAX(C1:C8)", "MAX(-1,-5)", "MAX(A1:A8,1000)"],
    "MEDIAN": ["MEDIAN(A1:A8)", "MEDIAN(1,2,3)", "MEDIAN(C1:C8)"],
    "COUNT": ["COUNT(A1:A8)", "COUNT(B1:B8)", "COUNT(C1:C8)", "COUNT(1,\"2\",\"x\",TRUE)", "COUNT(A1:D8)"],
    "COUNTA": ["COUNTA(A1:A8)", "COUNTA(B1:B8)", "COUNTA(C1:C8)", "COUNTA(1,\"\",TRUE)"],
    "COUNTBLANK": ["COUNTBLANK(A1:C8)", "COUNTBLANK(B1:B8)", "COUNTBLANK(C1:C8)"],
    "ABS": ["ABS(A3)", "ABS(-2.5)", "ABS(C2)"],
    "SQRT": ["SQRT(A5)", "SQRT(2)", "SQRT(A3)"],
    "INT": ["INT(A2)", "INT(-2.5)", "INT(A7)"],
    "EXP": ["EXP(1)", "EXP(A3)", "EXP(0)"],
    "LN": ["LN(A5)", "LN(0)", "LN(A2)"],
    "LOG10": ["LOG10(A8)", "LOG10(A7)", "LOG10(-1)"],
    "LOG": ["LOG(100)", "LOG(8,2)", "LOG(A5,A6)", "LOG(5,1)"],
    "SIN": ["SIN(A2)", "SIN(PI()/2)"],
    "COS": ["COS(A2)", "COS(0)"],
    "TAN": ["TAN(A1)", "TAN(A7)"],
    "ASIN": ["ASIN(A7)", "ASIN(2)"],
    "ACOS": ["ACOS(A7)", "ACOS(-1)"],
    "ATAN": ["ATAN(A5)", "ATAN(-1)"],
    "ATAN2": ["ATAN2(1,1)", "ATAN2(A3,A2)", "ATAN2(0,0)"],
    "SINH": ["SINH(A2)"],
    "COSH": ["COSH(A2)"],
    "TANH": ["TANH(A7)"],
    "DEGREES": ["DEGREES(PI())", "DEGREES(A2)"],
    "RADIANS": ["RADIANS(180)", "RADIANS(A8)"],
    "SIGN": ["SIGN(A3)", "SIGN(A4)", "SIGN(A5)"],
    "PI": ["PI()", "PI()*A5^2"],
    "FACT": ["FACT(5)", "FACT(A5)", "FACT(2.9)", "FACT(-1)"],
    "EVEN": ["EVEN(A2)", "EVEN(-3)", "EVEN(0)"],
    "ODD": ["ODD(A2)", "ODD(-4)", "ODD(0)", "ODD(2)"],
    "ROUND": ["ROUND(A2,0)", "ROUND(2.675,2)", "ROUND(-2.5,0)", "ROUND(1234.5678,-2)", "ROUND(A7*3,1)"],
    "ROUNDUP": ["ROUNDUP(A2,0)", "ROUNDUP(-2.1,0)", "ROUNDUP(3.14159,3)", "ROUNDUP(1234,-2)"],
    "ROUNDDOWN": ["ROUNDDOWN(A2,0)", "ROUNDDOWN(-2.9,0)", "ROUNDDOWN(3.14159,3)"],
    "TRUNC": ["TRUNC(A2)", "TRUNC(-8.9)", "TRUNC(3.14159,2)"],
    "MOD": ["MOD(10,3)", "MOD(-10,3)", "MOD(10,-3)", "MOD(A5,0)", "MOD(5.5,2)"],
    "POWER": ["POWER(2,10)", "POWER(A5,0.5)", "POWER(-8,1/3)", "POWER(0,0)"],
    "SUMPRODUCT": ["SUMPRODUCT(A1:A8,A1:A8)", "SUMPRODUCT(A1:A3,C1:C3)", "SUMPRODUCT(A1:A8)"],
    "AND": ["AND(TRUE,A1>0)", "AND(A1:A3)", "AND(C1:C8)", "AND(1,0)"],
    "OR": ["OR(FALSE,A3>0)", "OR(A4,A1)", "OR(C4)"],
    "XOR": ["_xlfn.XOR(TRUE,TRUE)", "_xlfn.XOR(TRUE,FALSE,TRUE)", "_xlfn.XOR(A1:A3)"],
    "NOT": ["NOT(TRUE)", "NOT(A4)", "NOT(A1>5)"],
    "TRUE": ["TRUE()"],
    "FALSE": ["FALSE()"],
    "NA": ["NA()", "ISNA(NA())"],
    "IF": ["IF(A1>0,\"pos\",\"neg\")", "IF(A3>0,1)", "IF(A4,\"yes\",\"no\")", "IF(B1=\"APPLE\",A8,0)", "IF(A1>0,1/0,SQRT(-1))", "IF(FALSE,1,)"],
    "IFERROR": ["IFERROR(1/0,\"div\")", "IFERROR(A2*2,\"x\")", "IFERROR(NA(),0)"],
    "IFNA": ["_xlfn.IFNA(NA(),\"none\")", "_xlfn.IFNA(1/0,\"none\")", "_xlfn.IFNA(A1,0)"],
    "CHOOSE": ["CHOOSE(2,\"a\",\"b\",\"c\")", "CHOOSE(A1,A2,A3)", "CHOOSE(5,1,2)"],
    "ISBLANK": ["ISBLANK(C5)", "ISBLANK(B5)", "ISBLANK(A1)"],
    "ISNUMBER": ["ISNUMBER(A1)", "ISNUMBER(C2)", "ISNUMBER(D1)"],
    "ISTEXT": ["ISTEXT(B1)", "ISTEXT(C2)", "ISTEXT(A1)"],
    "ISNONTEXT": ["ISNONTEXT(B1)", "ISNONTEXT(C5)"],
    "ISLOGICAL": ["ISLOGICAL(C1)", "ISLOGICAL(A1)"],
    "ISERROR": ["ISERROR(1/0)", "ISERROR(A1)", "ISERROR(NA())"],
    "ISERR": ["ISERR(1/0)", "ISERR(NA())", "ISERR(A1)"],
    "ISNA": ["ISNA(NA())", "ISNA(1/0)"],
    "ERROR.TYPE": ["ERROR.TYPE(1/0)", "ERROR.TYPE(NA())", "ERROR.TYPE(SQRT(-1))"],
    "TYPE": ["TYPE(A1)", "TYPE(B1)", "TYPE(C1)", "TYPE(1/0)", "TYPE(A1:A2)"],
    "CONCATENATE": ["CONCATENATE(B1,\" \",B2)", "CONCATENATE(A1,A2,C1)", "CONCATENATE(\"n=\",A7)", "CONCATENATE(A2/3)"],
    "CONCAT": ["_xlfn.CONCAT(B1:B3)", "_xlfn.CONCAT(A1:A3,\"-\")"],
    "LEN": ["LEN(B1)", "LEN(B7)", "LEN(A2)", "LEN(\"\")"],
    "UPPER": ["UPPER(B2)", "UPPER(\"mIxEd 1\")"],
    "LOWER": ["LOWER(B2)", "LOWER(C1)"],
    "TRIM": ["TRIM(B7)", "TRIM(\"  a  b  \")"],
    "T": ["T(B1)", "T(A1)"],
    "N": ["N(A2)", "N(B1)", "N(C1)"],
    "LEFT": ["LEFT(B1,3)", "LEFT(B2)", "LEFT(A8,2)", "LEFT(B1,10)"],
    "RIGHT": ["RIGHT(B1,3)", "RIGHT(B2)", "RIGHT(A2,2)"],
    "MID": ["MID(B2,2,3)", "MID(B1,10,2)", "MID(B1,1,0)"],
    "REPT": ["REPT(\"ab\",3)", "REPT(B1,0)", "REPT(\"-\",A5)"],
    "EXACT": ["EXACT(B1,B4)", "EXACT(B1,B8)", "EXACT(A1,\"1\")"],
    "FIND": ["FIND(\"an\",B2)", "FIND(\"an\",B2,4)", "FIND(\"z\",B1)", "FIND(\"A\",B2)"],
    "SEARCH": ["SEARCH(\"AN\",B2)", "SEARCH(\"e\",B3,4)", "SEARCH(\"z\",B1)"],
    "SUBSTITUTE": ["SUBSTITUTE(B2,\"a\",\"o\")", "SUBSTITUTE(B2,\"a\",\"o\",2)", "SUBSTITUTE(\"aaa\",\"a\",\"\")"],
    "CHAR": ["CHAR(65)", "CHAR(A5+88)", "CHAR(0)"],
    "CODE": ["CODE(B1)", "CODE(\"A\")", "CODE(\"\")"],
    "VALUE": ["VALUE(C2)", "VALUE(\"1.5e3\")", "VALUE(\"abc\")", "VALUE(\" 12 \")"],
    "ROW": ["ROW()", "ROW(C5)"],
    "COLUMN": ["COLUMN()", "COLUMN(D2)"],
    "ROWS": ["ROWS(A1:C8)", "ROWS({1,2;3,4})"],
    "COLUMNS": ["COLUMNS(A1:C8)", "COLUMNS({1,2,3})"],
    "INDEX": ["INDEX(A1:A8,3)", "INDEX(A1:C8,2,2)", "INDEX({1,2;3,4},2,1)", "INDEX(A1:A8,20)", "INDEX(A1:C1,2)"],
    "MATCH": ["MATCH(10,A1:A8,0)", "MATCH(\"CHERRY\",B1:B8,0)", "MATCH(5,{1,3,5,7},1)", "MATCH(6,{1,3,5,7})", "MATCH(\"zz\",B1:B8,0)", "MATCH(4,{7,5,3,1},-1)"],
    "VLOOKUP": ["VLOOKUP(10,A1:B8,2,FALSE)", "VLOOKUP(\"banana\",B1:C8,2,0)", "VLOOKUP(99,A1:B8,2,FALSE)", "VLOOKUP(10,A1:B8,3,FALSE)", "VLOOKUP(4,{1,\"a\";3,\"b\";5,\"c\"},2)", "VLOOKUP(4,{1,\"a\";3,\"b\";5,\"c\"},2,TRUE)"],
    "HLOOKUP": ["HLOOKUP(3,{1,3,5;\"a\",\"b\",\"c\"},2,FALSE)", "HLOOKUP(4,{1,3,5;\"a\",\"b\",\"c\"},2)"],
    "SUMIF": ["SUMIF(A1:A8,\">2\")", "SUMIF(B1:B8,\"apple\",A1:A8)", "SUMIF(A1:A8,\"<>0\")", "SUMIF(A1:A8,10)", "SUMIF(B1:B8,\"<>apple\",A1:A8)"],
    "AVERAGEIF": ["AVERAGEIF(A1:A8,\">0\")", "AVERAGEIF(B1:B8,\"apple\",A1:A8)", "AVERAGEIF(A1:A8,\">1000\")"],
    "COUNTIF": ["COUNTIF(A1:A8,\">1\")", "COUNTIF(B1:B8,\"apple\")", "COUNTIF(C1:C8,TRUE)", "COUNTIF(A1:A8,\"<=0\")", "COUNTIF(B1:B8,\"<>apple\")"],
    "COUNTIFS": ["COUNTIFS(A1:A8,\">0\",B1:B8,\"apple\")", "COUNTIFS(A1:A8,\">=1\",A1:A8,\"<10\")"],
    "SUMIFS": ["SUMIFS(A1:A8,B1:B8,\"apple\")", "SUMIFS(A1:A8,A1:A8,\">0\",A1:A8,\"<50\")"],
    "MAXIFS": ["_xlfn.MAXIFS(A1:A8,B1:B8,\"apple\")", "_xlfn.MAXIFS(A1:A8,A1:A8,\"<50\")", "_xlfn.MAXIFS(A1:A8,B1:B8,\"zz\")"],
    "MINIFS": ["_xlfn.MINIFS(A1:A8,B1:B8,\"apple\")", "_xlfn.MINIFS(A1:A8,A1:A8,\">0\")", "_xlfn.MINIFS(A1:A8,B1:B8,\"zz\")"],
    "IFS": ["_xlfn.IFS(A1>5,\"big\",A1>0,\"small\")", "_xlfn.IFS(A3>0,1)", "_xlfn.IFS(TRUE,A2)"],
    "PROPER": ["PROPER(\"hello wORLD\")", "PROPER(\"2-way street o'neil\")", "PROPER(B7)", "PROPER(\"abc1def\")"],
    "TEXTJOIN": ["_xlfn.TEXTJOIN(\"-\",TRUE,B1:B6)", "_xlfn.TEXTJOIN(\", \",FALSE,B4:B6)", "_xlfn.TEXTJOIN(\"\",TRUE,A1:A3,\"x\")"],
    "EDATE": ["EDATE(D1,1)", "EDATE(D3,12)", "EDATE(D1,-2)", "EDATE(D6,0)"],
    "EOMONTH": ["EOMONTH(D1,1)", "EOMONTH(D3,0)", "EOMONTH(D6,-1)", "EOMONTH(D2,14)"],
    "DAYS": ["_xlfn.DAYS(D1,D2)", "_xlfn.DAYS(D3,D1)", "_xlfn.DAYS(D4,D1)"],
    "DATE": ["DATE(2020,1,31)", "DATE(2020,13,1)", "DATE(2021,2,29)", "DATE(99,1,1)", "DATE(2020,1,0)", "DATE(2020,-1,15)"],
    "YEAR": ["YEAR(D1)", "YEAR(D3)", "YEAR(45000)"],
    "MONTH": ["MONTH(D1)", "MONTH(D4)", "MONTH(45000.5)"],
    "DAY": ["DAY(D1)", "DAY(D3)", "DAY(D6)"],
    "TIME": ["TIME(12,30,0)", "TIME(25,0,0)", "TIME(0,90,30)"],
    "HOUR": ["HOUR(D4)", "HOUR(0.75)", "HOUR(TIME(23,59,59))"],
    "MINUTE": ["MINUTE(D4)", "MINUTE(0.5208333)"],
    "SECOND": ["SECOND(D4)", "SECOND(TIME(1,2,3))"],
    "WEEKDAY": ["WEEKDAY(D1)", "WEEKDAY(D3,2)", "WEEKDAY(D6,3)", "WEEKDAY(45000)"],
}

OPERATORS = [
    "1+2*3", "(1+2)*3", "-2^2", "2^3^2", "10/4", "1/0", "A1+A2", "B1&\"-\"&A2", "A2&\"\"", "A1=1",
    "B1=\"APPLE\"", "B1<\"banana\"", "A1<>A2", "A2>=2.5", "1<\"a\"", "TRUE>1", "50%", "A5%*3", "\"3\"+4",
    "\"x\"+1", "C5+1", "C5&\"!\"", "C5=0", "C5=\"\"", "-A3", "+A3", "0.1+0.2", "1E+3*2", "A1:A1*2",
    "D1+1", "D1-D2", "SUM(A1:A8)/COUNT(A1:A8)", "{1,2,3}", "2^-1", "0^-1",
]


def write(path, cases):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Data"
    for r, row in enumerate(DATA, start=1):
        for c, v in enumerate(row, start=1):
            if v is not None:
                ws.cell(row=r, column=c, value=v)
    for i, f in enumerate(cases, start=1):
        ws.cell(row=i, column=6, value="=" + f)
    wb.save(path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "files"
    for name, cases in CASES.items():
        write(os.path.join(out, "generated__%s.xlsx" % name), cases)
    write(os.path.join(out, "generated__operators.xlsx"), OPERATORS)


if __name__ == "__main__":
    main()
