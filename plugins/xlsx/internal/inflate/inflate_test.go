package inflate

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"
)

// inflateAll reads the whole stream with our reader and with
// compress/flate's; it returns both outputs and errors.
func inflateAll(compressed []byte, readSize int) (ours, theirs []byte, errOurs, errTheirs error) {
	r := NewReader(bytes.NewReader(compressed))
	buf := make([]byte, readSize)
	for {
		n, err := r.Read(buf)
		ours = append(ours, buf[:n]...)
		if err != nil {
			if err != io.EOF {
				errOurs = err
			}
			break
		}
	}
	theirs, errTheirs = io.ReadAll(flate.NewReader(bytes.NewReader(compressed)))
	return ours, theirs, errOurs, errTheirs
}

// sample makes n bytes of text like a sheet's XML: tags repeated, numbers
// and words varying, some runs, some random bytes.
func sample(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	words := []string{"<row r=\"", "\"><c r=\"A", "\" t=\"s\"><v>", "</v></c>", "</row>", "aaaaaaaa", "é😀", "\x00\xff"}
	for b.Len() < n {
		switch rng.IntN(4) {
		case 0:
			b.WriteString(words[rng.IntN(len(words))])
		case 1:
			b.WriteString(string(rune('0' + rng.IntN(10))))
		case 2:
			b.Write(bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(300)))
		default:
			for range rng.IntN(20) {
				b.WriteByte(byte(rng.IntN(256)))
			}
		}
	}
	return b.Bytes()[:n]
}

func compress(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// TestInflateMatchesCompressFlate: every level compress/flate writes
// (stored, Huffman only, fixed and dynamic blocks), sizes across the
// window's slide, read in small and large pieces, inflate to the same
// bytes as compress/flate's reader.
func TestInflateMatchesCompressFlate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := []int{0, 1, 100, 40 << 10, 300 << 10, 1200 << 10}
	if underRace {
		sizes = sizes[:5] // 300 KiB still slides the window
	}
	for _, size := range sizes {
		data := sample(rng, size)
		for _, level := range []int{flate.NoCompression, flate.HuffmanOnly, flate.BestSpeed, flate.DefaultCompression, flate.BestCompression} {
			comp := compress(t, data, level)
			for _, readSize := range []int{1 << 20, 4093} {
				ours, _, err, _ := inflateAll(comp, readSize)
				if err != nil || !bytes.Equal(ours, data) {
					t.Fatalf("size %d level %d read %d: %d bytes (%v), want %d bytes as written", size, level, readSize, len(ours), err, len(data))
				}
			}
		}
	}
}

// TestInflateStoredAfterCompressed: a stored block's header after a
// compressed block gives the bit buffer's whole bytes back to the input,
// so they must still be there when the input was moved up to make room.
// A writer that flushes often (umya-spreadsheet's issue_233.xlsx: a
// 5.9 MB sheet; here compress/flate's Flush, an empty stored block after
// every piece) puts a stored header at every input refill sooner or later;
// read one byte at a time, the input is moved up every few bytes.
func TestInflateStoredAfterCompressed(t *testing.T) {
	data := sample(rand.New(rand.NewPCG(9, 10)), 200<<10)
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.DefaultCompression)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(data); i += 700 {
		w.Write(data[i:min(i+700, len(data))])
		w.Flush()
	}
	w.Close()
	for name, r := range map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(b.Bytes()) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(b.Bytes())) },
		"halves":   func() io.Reader { return iotest.HalfReader(bytes.NewReader(b.Bytes())) },
	} {
		got, err := io.ReadAll(NewReader(r()))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes (%v), want the %d written", name, len(got), err, len(data))
		}
	}
}

// TestInflateCorpusParts inflates every deflated part of the workbook
// corpus (written by Excel, LibreOffice, POI, … — see
// plugins/xlsx/testdata/corpus/SOURCES.tsv) as compress/flate does.
func TestInflateCorpusParts(t *testing.T) {
	books, _ := filepath.Glob("../../testdata/corpus/files/*.xlsx")
	if len(books) == 0 {
		t.Fatal("no corpus workbooks")
	}
	parts := 0
	for _, book := range books {
		zr, err := zip.OpenReader(book)
		if err != nil {
			continue // the corpus holds broken files on purpose
		}
		for _, f := range zr.File {
			if f.Method != zip.Deflate || underRace && f.UncompressedSize64 > 4<<20 {
				continue // under the race detector, not the 57 MB sheet
			}
			rc, err := f.OpenRaw()
			if err != nil {
				continue
			}
			comp, err := io.ReadAll(rc)
			if err != nil {
				continue
			}
			ours, theirs, errOurs, errTheirs := inflateAll(comp, 32<<10)
			if (errOurs == nil) != (errTheirs == nil) || !bytes.Equal(ours, theirs) {
				t.Errorf("%s %s: %d bytes (%v), compress/flate %d bytes (%v)", filepath.Base(book), f.Name, len(ours), errOurs, len(theirs), errTheirs)
			}
			parts++
		}
		zr.Close()
	}
	t.Logf("%d parts of %d workbooks", parts, len(books))
}

// TestInflateTruncatedAndCorrupt: a stream cut anywhere fails (never a
// short success) after handing out only the data's true start (never bits
// made up past the end), and a corrupt one reads as compress/flate reads it
// or fails.
func TestInflateTruncatedAndCorrupt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := sample(rng, 200<<10)
	comp := compress(t, data, flate.DefaultCompression)
	tries := 300
	if underRace {
		tries = 60
	}
	for cut := 0; cut < len(comp); cut += 1 + len(comp)/tries {
		ours, _, err, _ := inflateAll(comp[:cut], 1<<20)
		if err == nil {
			t.Fatalf("stream cut at %d of %d: %d bytes and no error", cut, len(comp), len(ours))
		}
		if !bytes.HasPrefix(data, ours) {
			t.Fatalf("stream cut at %d of %d: the %d bytes read before the error are not the data's start", cut, len(comp), len(ours))
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			var ce flate.CorruptInputError
			if !errors.As(err, &ce) {
				t.Fatalf("stream cut at %d: %v, want io.ErrUnexpectedEOF or a flate.CorruptInputError", cut, err)
			}
		}
	}
	for i := range tries {
		bad := bytes.Clone(comp)
		bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
		ours, theirs, errOurs, errTheirs := inflateAll(bad, 1<<20)
		if errTheirs == nil && (errOurs != nil || !bytes.Equal(ours, theirs)) {
			t.Fatalf("flip %d: compress/flate reads %d bytes, we %d (%v)", i, len(theirs), len(ours), errOurs)
		}
		if errTheirs != nil && errOurs == nil && bytes.Equal(ours, data) {
			t.Fatalf("flip %d: compress/flate fails (%v), we read the original", i, errTheirs)
		}
	}
}

func FuzzInflate(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, level := range []int{0, -2, 1, 6, 9} {
		f.Add(compress(f, sample(rng, 3000), level))
	}
	f.Fuzz(func(t *testing.T, comp []byte) {
		ours, theirs, errOurs, errTheirs := inflateAll(comp, 777)
		if errTheirs == nil && (errOurs != nil || !bytes.Equal(ours, theirs)) {
			t.Fatalf("compress/flate reads %d bytes, we %d (%v)", len(theirs), len(ours), errOurs)
		}
		if errTheirs != nil && errOurs == nil {
			t.Fatalf("compress/flate fails (%v), we read %d bytes", errTheirs, len(ours))
		}
	})
}

// BenchmarkInflate compares with compress/flate on sheet-like text.
func BenchmarkInflate(b *testing.B) {
	data := sample(rand.New(rand.NewPCG(7, 8)), 4<<20)
	if p := os.Getenv("INFLATE_BENCH_FILE"); p != "" {
		var err error
		if data, err = os.ReadFile(p); err != nil {
			b.Fatal(err)
		}
	}
	comp := compress(b, data, flate.DefaultCompression)
	buf := make([]byte, 64<<10)
	b.Run("ours", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			r := NewReader(bytes.NewReader(comp))
			for {
				if _, err := r.Read(buf); err != nil {
					break
				}
			}
		}
	})
	b.Run("compress-flate", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			r := flate.NewReader(bytes.NewReader(comp))
			for {
				if _, err := r.Read(buf); err != nil {
					break
				}
			}
		}
	})
}
