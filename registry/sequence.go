package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// SequenceFile is the name, in the host's state folder, of the record of
// each tool's latest approval.
const SequenceFile = "approvals.seq.json"

// sequences is the record, kept in the state folder beside the approval key
// and never in a lock file, of the approvals this user made: every approval
// takes the next number, and Latest keeps each tool's last one per lock
// file. A lock entry older than its tool's latest approval is a lock file
// put back (with, likely, the folder it approved): it runs nothing until a
// person approves it again. Numbers are kept per lock file, not per tool
// name, so one name approved in two plugins folders runs from both; an
// entry carried to a lock file without a record is refused by its MAC,
// which signs the lock file's path.
type sequences struct {
	// Comment says what the file is, for the person who opens it.
	Comment string `json:"comment"`
	// Last is the number the last approval took.
	Last uint64 `json:"last"`
	// Latest maps a lock file's path to each tool's latest approval in it.
	Latest map[string]map[string]uint64 `json:"latest"`
}

const sequencesComment = "toolhost approval sequence: written by `host approve`; a plugins.lock entry older than the number here is refused until approved again"

// sequenceKey names root's lock file in the record: its absolute path, so
// one plugins folder named two ways (relative, absolute) is one entry.
func sequenceKey(root string) string {
	lock := LockPath(root)
	if abs, err := filepath.Abs(lock); err == nil {
		return abs
	}
	return lock
}

// readSequences reads stateDir's record; a missing one is empty.
func readSequences(stateDir string) (*sequences, error) {
	s := &sequences{Latest: map[string]map[string]uint64{}}
	path := filepath.Join(stateDir, SequenceFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("registry: read approval sequence: %w", err)
	}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("registry: read approval sequence: %s is damaged (%v): delete it and approve the plugins again with `%s approve --all`", path, err, Command)
	}
	if s.Latest == nil {
		s.Latest = map[string]map[string]uint64{}
	}
	return s, nil
}

// next records a new approval of tool in lockPath and returns its number.
func (s *sequences) next(lockPath, tool string) uint64 {
	s.Last++
	if s.Latest[lockPath] == nil {
		s.Latest[lockPath] = map[string]uint64{}
	}
	s.Latest[lockPath][tool] = s.Last
	return s.Last
}

// write saves the record in stateDir, readable by its owner only.
func (s *sequences) write(stateDir string) error {
	s.Comment = sequencesComment
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("registry: write approval sequence: %w", err)
	}
	if err := writeAtomic(filepath.Join(stateDir, SequenceFile), append(raw, '\n'), 0o600); err != nil {
		return fmt.Errorf("registry: write approval sequence: %w", err)
	}
	return nil
}
