package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeProvider serves one file and fails as told.
type fakeProvider struct {
	name        string
	path        string
	discoverErr error
	panics      bool
}

func (f fakeProvider) Name() string { return f.name }

func (f fakeProvider) Discover(Env) (Discovery, error) {
	if f.discoverErr != nil {
		return Discovery{Found: true}, f.discoverErr
	}
	return Discovery{Sources: []Source{{Path: f.path, Appendable: true}}, Found: true}, nil
}

func (f fakeProvider) Parse(ctx context.Context, st *FileState) error {
	if f.panics {
		panic("boom")
	}
	return readLines(ctx, st, func(line []byte) {
		st.add(Call{Time: 1, Origin: st.origin(f.name, "/p", "p", "s", "m"), In: uint32(len(line))}, nil)
	})
}

// TestProviderIsolation: a provider that panics or fails to list its files
// is reported in Degraded; the others' calls are all there.
func TestProviderIsolation(t *testing.T) {
	dir := t.TempDir()
	file, other := filepath.Join(dir, "ok.jsonl"), filepath.Join(dir, "bad.jsonl")
	for _, f := range []string{file, other} {
		if err := os.WriteFile(f, []byte("aaa\nbb\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		broken fakeProvider
		reason string
	}{
		{"parse panics", fakeProvider{name: "bad", path: other, panics: true}, "internal error"},
		{"discover fails", fakeProvider{name: "bad", discoverErr: errors.New("no access")}, "no access"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore(func(string) string { return "" }, 2, fakeProvider{name: "good", path: file}, tt.broken)
			s.Refresh(context.Background(), nil)
			s.View(func(snap *Snapshot) {
				var in uint32
				for _, c := range snap.Calls {
					if c.Origin.Provider == "good" {
						in += c.In
					}
				}
				if in != 5 {
					t.Errorf("good provider: got %d input tokens, want 5", in)
				}
				if len(snap.Degraded) != 1 || snap.Degraded[0].Provider != "bad" || !strings.Contains(snap.Degraded[0].Reason, tt.reason) {
					t.Errorf("got degraded %+v", snap.Degraded)
				}
			})
		})
	}
}

// TestIncremental: an append is read from where the last read stopped; a
// half-written last line waits for its newline; a rewrite is read anew.
func TestIncremental(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.jsonl")
	write := func(flag int, s string) {
		f, err := os.OpenFile(file, flag|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	s := NewStore(func(string) string { return "" }, 1, fakeProvider{name: "p", path: file})
	total := func() (in uint32, read int64) {
		s.Refresh(context.Background(), nil)
		s.View(func(snap *Snapshot) {
			for _, c := range snap.Calls {
				in += c.In
			}
			read = snap.Stats.BytesReadLast
		})
		return in, read
	}
	steps := []struct {
		name     string
		flag     int
		text     string
		wantIn   uint32
		wantRead int64
	}{
		{"first read", os.O_TRUNC, "aaaa\n", 4, 5},
		{"append", os.O_APPEND, "bb\n", 6, 3},
		{"half a line", os.O_APPEND, `{"x":`, 6, 5},
		{"its end", os.O_APPEND, "1}\n", 6 + 7, 8},
		{"unchanged", os.O_APPEND, "", 13, 0},
		{"rewritten shorter", os.O_TRUNC, "c\n", 1, 2},
	}
	for _, st := range steps {
		write(st.flag, st.text)
		in, read := total()
		if in != st.wantIn || read != st.wantRead {
			t.Errorf("%s: got %d tokens, %d bytes read; want %d, %d", st.name, in, read, st.wantIn, st.wantRead)
		}
	}
}
