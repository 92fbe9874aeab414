package formula

import (
	"context"
	"errors"
	"testing"
)

// FuzzCompute: any formula text is computed or refused with a reason,
// never a panic or an unexplained error.
func FuzzCompute(f *testing.F) {
	for _, s := range []string{"=A1+A2", "=SUM(A1:A8,C1:C8)", `=IF(A1>0,"a",1/0)`, "='My Sheet'!A1&Other!B2",
		"={1,2;3,4}", "=-2^2%", `=COUNTIF(A:A,"<>")`, "=INDEX(A1:C3,2,2)", "=VLOOKUP(1,A1:B2,2,FALSE)",
		"=DATE(2020,13,1)", "=((1)", `="a""b"`, "=A1:A2", "=#REF!+1", "=_xlfn.CONCAT(A1:A3)", "=1:1", "=$A$1:$B2"} {
		f.Add(s)
	}
	w, err := openFuzzBook()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		b := New(context.Background(), w)
		_, err := b.Compute("Sheet1", 20, 3, text)
		var u *Unsupported
		if err != nil && !errors.As(err, &u) {
			t.Fatalf("%q: %v", text, err)
		}
	})
}
