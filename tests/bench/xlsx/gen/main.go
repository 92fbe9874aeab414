// Command gen writes the xlsx benchmark's workbook: one sheet of ROWS × 10
// columns mixing integers, decimals, shared strings (a small pool and one
// unique string per row), booleans, dates and date-times, deflated as Excel
// does. It writes the XML directly, so generating 200,000 rows takes about a
// second.
package main

import (
	"archive/zip"
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
)

func main() {
	rows := flag.Int("rows", 200_000, "data rows (a header row is added)")
	out := flag.String("o", "bench.xlsx", "workbook to write")
	flag.Parse()
	if err := write(*out, *rows); err != nil {
		log.Fatal(err)
	}
}

const (
	namePool     = 5000
	categoryPool = 12
)

var headers = []string{"id", "customer", "amount", "date", "qty", "category", "price", "timestamp", "invoice", "paid"}

func write(path string, rows int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	put := func(name, body string) error {
		w, err := zw.Create(name)
		if err != nil {
			return err
		}
		_, err = w.Write([]byte(body))
		return err
	}
	const ns = `xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"`
	const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	parts := [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="` + rel + `/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
		{"xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook ` + ns + ` xmlns:r="` + rel + `"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="` + rel + `/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="` + rel + `/styles" Target="styles.xml"/><Relationship Id="rId3" Type="` + rel + `/sharedStrings" Target="sharedStrings.xml"/></Relationships>`},
		{"xl/styles.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><styleSheet ` + ns + `><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/></numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/><xf numFmtId="164" applyNumberFormat="1"/><xf numFmtId="2" applyNumberFormat="1"/></cellXfs></styleSheet>`},
	}
	for _, p := range parts {
		if err := put(p[0], p[1]); err != nil {
			return err
		}
	}
	// Shared strings: headers, the name pool, the categories, one invoice
	// number per row.
	w, err := zw.Create("xl/sharedStrings.xml")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	total := len(headers) + namePool + categoryPool + rows
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst %s count="%d" uniqueCount="%d">`, ns, total, total)
	for _, h := range headers {
		fmt.Fprintf(bw, `<si><t>%s</t></si>`, h)
	}
	for i := range namePool {
		fmt.Fprintf(bw, `<si><t>Customer %04d &amp; Sons</t></si>`, i)
	}
	for i := range categoryPool {
		fmt.Fprintf(bw, `<si><t>Category %c</t></si>`, 'A'+i)
	}
	for i := range rows {
		fmt.Fprintf(bw, `<si><t>INV-%07d</t></si>`, i+1)
	}
	bw.WriteString(`</sst>`)
	if err := bw.Flush(); err != nil {
		return err
	}
	w, err = zw.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		return err
	}
	bw = bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet %s><dimension ref="A1:J%d"/><sheetData>`, ns, rows+1)
	bw.WriteString(`<row r="1">`)
	for i := range headers {
		fmt.Fprintf(bw, `<c r="%c1" t="s"><v>%d</v></c>`, 'A'+i, i)
	}
	bw.WriteString(`</row>`)
	var b []byte
	seed := uint64(42)
	rnd := func(n uint64) uint64 {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return seed % n
	}
	cell := func(b []byte, col byte, r string, attrs string, v []byte) []byte {
		b = append(b, `<c r="`...)
		b = append(b, col)
		b = append(b, r...)
		b = append(b, '"')
		b = append(b, attrs...)
		b = append(b, `><v>`...)
		b = append(b, v...)
		return append(b, `</v></c>`...)
	}
	var v []byte
	for i := range rows {
		r := strconv.Itoa(i + 2)
		b = append(b[:0], `<row r="`...)
		b = append(b, r...)
		b = append(b, `">`...)
		b = cell(b, 'A', r, "", strconv.AppendInt(v[:0], int64(i+1), 10))
		b = cell(b, 'B', r, ` t="s"`, strconv.AppendUint(v[:0], uint64(len(headers))+rnd(namePool), 10))
		b = cell(b, 'C', r, ` s="3"`, strconv.AppendFloat(v[:0], float64(rnd(10_000_000))/100+0.01, 'f', -1, 64))
		b = cell(b, 'D', r, ` s="1"`, strconv.AppendUint(v[:0], 40000+rnd(9000), 10))
		b = cell(b, 'E', r, "", strconv.AppendUint(v[:0], rnd(500), 10))
		b = cell(b, 'F', r, ` t="s"`, strconv.AppendUint(v[:0], uint64(len(headers)+namePool)+rnd(categoryPool), 10))
		b = cell(b, 'G', r, "", strconv.AppendFloat(v[:0], float64(rnd(100_000))/7, 'g', -1, 64))
		b = cell(b, 'H', r, ` s="2"`, strconv.AppendFloat(v[:0], 40000+float64(rnd(900_000_000))/100_000, 'f', -1, 64))
		b = cell(b, 'I', r, ` t="s"`, strconv.AppendInt(v[:0], int64(len(headers)+namePool+categoryPool+i), 10))
		b = cell(b, 'J', r, ` t="b"`, strconv.AppendUint(v[:0], rnd(2), 10))
		b = append(b, `</row>`...)
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	bw.WriteString(`</sheetData></worksheet>`)
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}
