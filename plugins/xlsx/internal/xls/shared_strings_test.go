package xls

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// biffRecord is one record: type, length, body.
func biffRecord(typ uint16, body ...byte) []byte {
	b := binary.LittleEndian.AppendUint16(nil, typ)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(body)))
	return append(b, body...)
}

// The shared-string table keeps each string whole, one split by a
// CONTINUE record whose flags byte widens its characters included, and a
// second SST record adds its strings after the first's.
func TestSharedStringsAcrossRecords(t *testing.T) {
	var s []byte
	s = append(s, biffRecord(recSST,
		3, 0, 0, 0, 2, 0, 0, 0, // total, unique
		3, 0, 0, 'a', 'b', 'c', // "abc", 8-bit
		3, 0, 0, 'h')...) // "hé€", its first character here
	s = append(s, biffRecord(recContinue, 1, 0xE9, 0x00, 0xAC, 0x20)...) // the rest, 16-bit
	s = append(s, biffRecord(recSST, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 'x')...)
	b := &book{maxMem: workbook.DefaultMaxMemory}
	rr := newRecordReader(bytes.NewReader(s), 0)
	for {
		typ, body, err := rr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if typ == recSST {
			if err := b.readSST(rr, body); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{"abc", "hé€", "x"}
	if b.sst.len() != len(want) {
		t.Fatalf("got %d shared strings, want %d", b.sst.len(), len(want))
	}
	for i, w := range want {
		if got := b.sst.at(i); got != w {
			t.Errorf("string %d: got %q, want %q", i, got, w)
		}
	}
}
