package workbook

import (
	"bytes"
	"strings"
	"testing"
)

// needsLook is the byte-at-a-time definition plainBlocks and plainWords
// implement: a byte JSON escaping must look at.
func needsLook(c byte) bool {
	return c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&'
}

// TestPlainBlocksEveryByte puts every byte value at every position of a
// plain run three blocks and a bit long, and checks plainBlocks (assembly
// on amd64) and plainWords against needsLook: each returns an index before
// which every byte passes, and plainBlocks the byte's own index when it
// lies in a whole block, len rounded down to sixteen otherwise.
func TestPlainBlocksEveryByte(t *testing.T) {
	const n = 3*16 + 5
	plain := strings.Repeat("abcdefghijklmnopqrstuvwxyz 0123456789!#$%'()*+,-./=?@[]^_`{|}~", 1)[:n]
	for c := range 256 {
		for at := range n {
			s := plain[:at] + string([]byte{byte(c)}) + plain[at+1:]
			want := n &^ 15
			if needsLook(byte(c)) && at < want {
				want = at
			}
			if runtimeHasBlocks {
				if got := plainBlocks(s); got != want {
					t.Fatalf("plainBlocks with %#x at %d = %d, want %d", c, at, got, want)
				}
			}
			got := plainWords(s, 0)
			for i := range got {
				if needsLook(s[i]) {
					t.Fatalf("plainWords with %#x at %d = %d, past byte %d that needs a look", c, at, got, i)
				}
			}
			if !needsLook(byte(c)) && got < n&^7 {
				t.Fatalf("plainWords with plain %#x at %d stopped at %d", c, at, got)
			}
			if needsLook(byte(c)) && got > at {
				t.Fatalf("plainWords with %#x at %d = %d, past it", c, at, got)
			}
		}
	}
}

// TestASCIIBlocksEveryByte does the same for asciiBlocks and RuneCount.
func TestASCIIBlocksEveryByte(t *testing.T) {
	const n = 3*16 + 5
	plain := []byte(strings.Repeat("x", n))
	for c := range 256 {
		for at := range n {
			b := append([]byte(nil), plain...)
			b[at] = byte(c)
			want := n &^ 15
			if c >= 0x80 && at < want {
				want = at
			}
			if runtimeHasBlocks {
				if got := asciiBlocks(b); got != want {
					t.Fatalf("asciiBlocks with %#x at %d = %d, want %d", c, at, got, want)
				}
			}
			if got, want := RuneCount(b), len([]rune(string(b))); got != want {
				t.Fatalf("RuneCount with %#x at %d = %d, want %d", c, at, got, want)
			}
		}
	}
}

// TestIndexNear compares indexNear with bytes.IndexByte for the byte at
// every position of runs on both sides of nearBytes, and absent.
func TestIndexNear(t *testing.T) {
	for n := 0; n <= 3*nearBytes; n++ {
		for at := -1; at < n; at++ {
			b := []byte(strings.Repeat("x", n))
			if at >= 0 {
				b[at] = '<'
				if at+1 < n {
					b[at+1] = '<' // only the first counts
				}
			}
			if got, want := indexNear(b, '<'), bytes.IndexByte(b, '<'); got != want {
				t.Fatalf("indexNear(%q) = %d, want %d", b, got, want)
			}
		}
	}
}
