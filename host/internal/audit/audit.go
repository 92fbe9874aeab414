// Package audit is the host's record of the calls a person must be able to
// look back on: every call that came through a *_confirmed tool, and every
// irreversible call the gate or the approval lock refused. Each is one JSON
// line (time, the authenticated subject, the client's name, tool, action, the argument names — never their
// values — and the outcome) appended to a file in the user's state folder;
// `host audit` reads it back.
package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// FileName is the audit log's name in the host's state folder.
const FileName = "audit.jsonl"

// Entry is one audited call.
type Entry struct {
	Time time.Time `json:"time"`
	// Subject is who the request was authenticated as (an OAuth access
	// token's sub); empty when nothing authenticated a person.
	Subject string `json:"subject,omitempty"`
	// Client is the name the MCP client gave for itself (clientInfo): what
	// it says, not who it is.
	Client        string `json:"client"`
	ClientVersion string `json:"client_version,omitempty"`
	// Agent is the calling agent, for a nested call.
	Agent string `json:"agent,omitempty"`
	Tool  string `json:"tool"`
	// Action is the action that ran or was refused.
	Action string `json:"action"`
	// Args are the names of the arguments the caller gave, sorted; never
	// their values.
	Args []string `json:"args"`
	// Confirmed is true when the call came through a *_confirmed tool.
	Confirmed bool `json:"confirmed"`
	// Irreversible is what the gate judged the action to be.
	Irreversible bool `json:"irreversible"`
	// Request, when set, is a hosted MCP server's request of the client
	// during the call (elicitation/create, sampling/createMessage): the
	// entry records that request, not the call.
	Request string `json:"request,omitempty"`
	// Outcome is "ok", or the error code the call ended with
	// (approval_required, denied, not_ready, a plugin's own code, …); for a
	// Request, "ok", the person's answer to an elicitation (accept,
	// decline, cancel), or "refused".
	Outcome string `json:"outcome"`
	// Reason says why a Request was refused.
	Reason string `json:"reason,omitempty"`
}

// Log appends entries to a file. It is safe for concurrent use, and
// several host processes may append to the same file: each entry is one
// write to a file opened for appending.
type Log struct {
	// Path is the JSON-lines file.
	Path string
	mu   sync.Mutex
}

// Append writes e as one line, creating the file (0600) and its folder
// (0700) when needed.
func (l *Log) Append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: encode: %w", err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o700); err != nil {
		return fmt.Errorf("audit: append: %w", err)
	}
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit: append: %w", err)
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("audit: append: %w", err)
	}
	return nil
}

// Filter selects entries; its zero value selects all.
type Filter struct {
	// Since keeps entries at or after this time, when not zero.
	Since time.Time
	// Tool keeps one tool's (or agent's) entries, when not empty.
	Tool string
}

// Read returns the entries of the file at path that f selects, oldest
// first. A missing file has no entries; a line that is not an entry is an
// error naming its line number.
func Read(path string, f Filter) ([]Entry, error) {
	file, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit: read: %w", err)
	}
	defer file.Close()
	var out []Entry
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("audit: read %s:%d: not an audit entry: %w", path, n, err)
		}
		if (!f.Since.IsZero() && e.Time.Before(f.Since)) || (f.Tool != "" && e.Tool != f.Tool) {
			continue
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("audit: read %s: %w", path, err)
	}
	return out, nil
}
