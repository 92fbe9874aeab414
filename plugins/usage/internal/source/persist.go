package source

import (
	"bufio"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// indexVersion numbers the on-disk index's layout; an index of another
// version is not read (the next refresh parses everything and saves anew).
const indexVersion = 1

// callBytes is one call's size in the on-disk index.
const callBytes = 56

// savedIndex is the on-disk form of a Store: every file's parse state, so
// a new process (the statusline, a budget check) reads only what was
// appended since. Tool uses are not kept: the reports that read a saved
// index are cost reports.
type savedIndex struct {
	Version int
	NextID  uint32
	Files   []savedFile
}

type savedFile struct {
	Source                    Source
	Provider                  string
	ID                        uint32
	Size, ModTime, Offset     int64
	Lines, Skipped, Oversized int64
	Lineage                   Lineage
	Origins                   []savedOrigin
	// Calls are packed, callBytes each (see packCall).
	Calls []byte
	Carry *savedCarry
}

type savedOrigin struct {
	Project, Name, Session, Model string
}

// savedCarry is a provider's state between appended reads, in one shape
// for all providers (each reads back the fields it wrote).
type savedCarry struct {
	Strings []string
	Turn    uint32
	Numbers []int64
	Flag    bool
}

// carrySaver is a provider's carry that can be saved.
type carrySaver interface{ save() *savedCarry }

func (c *claudeCarry) save() *savedCarry {
	return &savedCarry{Strings: []string{c.cwd, c.name, c.model}, Turn: c.turn}
}

func (c *codexCarry) save() *savedCarry {
	m := c.max
	return &savedCarry{Strings: []string{c.model, c.cwd, c.name, c.session}, Turn: c.turn,
		Numbers: []int64{m.input, m.cached, m.output, m.reasoning, m.total}, Flag: c.metaSeen}
}

func (c *geminiCarry) save() *savedCarry {
	return &savedCarry{Strings: []string{c.session}, Turn: c.turn}
}

// restoreCarry is the carry provider saved as sc; nil when the shape is
// not the provider's (the file is then parsed again from its start).
func restoreCarry(provider string, sc *savedCarry) (any, bool) {
	if sc == nil {
		return nil, true
	}
	s, n := sc.Strings, sc.Numbers
	switch {
	case provider == "claude" && len(s) == 3:
		return &claudeCarry{cwd: s[0], name: s[1], model: s[2], turn: sc.Turn}, true
	case provider == "codex" && len(s) == 4 && len(n) == 5:
		return &codexCarry{model: s[0], cwd: s[1], name: s[2], session: s[3], turn: sc.Turn, metaSeen: sc.Flag,
			max: codexUsage{input: n[0], cached: n[1], output: n[2], reasoning: n[3], total: n[4]}}, true
	case (provider == "gemini" || provider == "qwen") && len(s) == 1:
		return &geminiCarry{session: s[0], turn: sc.Turn}, true
	}
	return nil, false
}

// packCall writes c into b (callBytes long); origin numbers its Origin in
// the file's list.
func packCall(b []byte, c *Call, origin uint32) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(c.Time))
	le.PutUint64(b[8:], c.Key)
	for i, v := range [...]uint32{c.In, c.Out, c.CW5m, c.CW1h, c.CR, c.Turn, c.sub, c.idx, origin} {
		le.PutUint32(b[16+4*i:], v)
	}
}

// unpackCall reads a call packed by packCall and its origin's number.
func unpackCall(b []byte) (Call, uint32) {
	le := binary.LittleEndian
	var v [9]uint32
	for i := range v {
		v[i] = le.Uint32(b[16+4*i:])
	}
	return Call{Time: int64(le.Uint64(b[0:])), Key: le.Uint64(b[8:]), In: v[0], Out: v[1], CW5m: v[2], CW1h: v[3],
		CR: v[4], Turn: v[5], sub: v[6], idx: v[7]}, v[8]
}

// Save writes the store's parse state to path (through a temporary file
// renamed over it, so a reader never sees half an index). Files whose last
// parse failed are left out: the next process parses them again.
func (s *Store) Save(path string) error {
	s.mu.Lock()
	idx := savedIndex{Version: indexVersion, NextID: s.nextID}
	for _, st := range s.files {
		if st.Err != nil || st.provider == nil {
			continue
		}
		f := savedFile{Source: st.Source, Provider: st.provider.Name(), ID: st.ID, Size: st.Size, ModTime: st.ModTime,
			Offset: st.Offset, Lines: st.Lines, Skipped: st.Skipped, Oversized: st.Oversized, Lineage: st.Lineage,
			Calls: make([]byte, callBytes*len(st.Calls))}
		if cs, ok := st.Carry.(carrySaver); ok {
			f.Carry = cs.save()
		}
		origins := map[*Origin]uint32{}
		for i := range st.Calls {
			c := &st.Calls[i]
			n, ok := origins[c.Origin]
			if !ok {
				n = uint32(len(f.Origins))
				origins[c.Origin] = n
				o := c.Origin
				f.Origins = append(f.Origins, savedOrigin{Project: o.Project, Name: o.Name, Session: o.Session, Model: o.Model})
			}
			packCall(f.Calls[callBytes*i:], c, n)
		}
		idx.Files = append(idx.Files, f)
	}
	s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save usage index: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".index-*")
	if err != nil {
		return fmt.Errorf("save usage index: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	err = gob.NewEncoder(w).Encode(&idx)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("save usage index: %w", err)
	}
	return nil
}

// errIndexVersion: the index was written by another layout.
var errIndexVersion = errors.New("index of another version")

// Load reads an index Save wrote into an empty store; the next Refresh
// stats every file and reads only what changed since. A missing index is
// fs.ErrNotExist; an unreadable one is an error and leaves the store empty.
func (s *Store) Load(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("load usage index: %w", err)
	}
	defer f.Close()
	var idx savedIndex
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&idx); err != nil {
		return fmt.Errorf("load usage index %s: %w", filepath.Base(path), err)
	}
	if idx.Version != indexVersion {
		return fmt.Errorf("load usage index %s: %w", filepath.Base(path), errIndexVersion)
	}
	byName := map[string]Provider{}
	for _, p := range s.providers {
		byName[p.Name()] = p
	}
	files := make(map[string]*FileState, len(idx.Files))
	for i := range idx.Files {
		sf := &idx.Files[i]
		p := byName[sf.Provider]
		carry, ok := restoreCarry(sf.Provider, sf.Carry)
		if p == nil || !ok || len(sf.Calls)%callBytes != 0 {
			continue // parsed again from the start
		}
		st := &FileState{Source: sf.Source, ID: sf.ID, Size: sf.Size, ModTime: sf.ModTime, Offset: sf.Offset,
			Lines: sf.Lines, Skipped: sf.Skipped, Oversized: sf.Oversized, Lineage: sf.Lineage, Carry: carry, provider: p,
			Calls: make([]Call, len(sf.Calls)/callBytes)}
		origins := make([]*Origin, len(sf.Origins))
		for j, o := range sf.Origins {
			origins[j] = &Origin{Provider: sf.Provider, Project: o.Project, Name: o.Name, Session: o.Session,
				Model: o.Model, File: sf.ID, fs: st}
		}
		bad := false
		for j := range st.Calls {
			c, n := unpackCall(sf.Calls[callBytes*j:])
			if int(n) >= len(origins) {
				bad = true
				break
			}
			c.Origin = origins[n]
			st.Calls[j] = c
		}
		if bad {
			continue
		}
		if len(origins) > 0 {
			st.lastOrigin = origins[len(origins)-1]
		}
		files[st.Path] = st
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files, s.nextID, s.loaded = files, idx.NextID, true
	return nil
}

// Files counts the files the store holds parse state for.
func (s *Store) Files() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files)
}
