package source

import "testing"

// TestKeyTable stores keys past several growths, overwrites some, and
// checks every stored value and that absent keys are absent, against a Go
// map holding the same.
func TestKeyTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sized int // the size the table is made for
		n     int // keys stored
	}{
		{"empty", 0, 0},
		{"sized", 1000, 1000},
		{"grows from nothing", 0, 5000},
		{"grows from small", 10, 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tab keyTable
			if tc.sized > 0 {
				tab = newKeyTable(tc.sized)
			}
			want := map[uint64]int32{}
			for i := range tc.n {
				k := keyOf([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
				tab.put(k, int32(i))
				want[k] = int32(i)
				if i%7 == 0 { // overwrite
					tab.put(k, int32(-i))
					want[k] = int32(-i)
				}
			}
			if tab.n != len(want) {
				t.Errorf("got %d keys, want %d", tab.n, len(want))
			}
			for k, v := range want {
				if got, ok := tab.get(k); !ok || got != v {
					t.Fatalf("get(%x): got %d, %v, want %d", k, got, ok, v)
				}
			}
			for i := range 1000 {
				k := keyOf([]byte("absent"), []byte{byte(i), byte(i >> 8)})
				if _, ok := want[k]; ok {
					continue
				}
				if got, ok := tab.get(k); ok {
					t.Fatalf("get(absent %x): got %d, want none", k, got)
				}
			}
		})
	}
}
