package source

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolhost/toolhost/plugins/usage/internal/regular"
)

// openDB opens the SQLite database at st.Path for reading without
// changing anything of the agent's: the database, its -wal and -shm stay
// byte for byte as they were and no file is added beside them. A database
// with nothing beside it is opened immutable (SQLite takes no locks and
// creates no -shm); one with a -wal (rows not yet checkpointed, the agent
// running or crashed) or a hot -journal is copied with them to a private
// folder and the copy is read, since even a read-only connection writes
// its read marks into the -shm and would create one. It checks first that
// the database is a regular file (SQLite opens by name, and a FIFO would
// block its open) and counts its size as read; what names the database in
// errors. done closes the database and removes any copy.
func openDB(st *FileState, what string) (db *sql.DB, done func(), err error) {
	fi, err := regular.Stat(st.Path)
	if err != nil {
		return nil, nil, err
	}
	st.BytesRead += fi.Size()
	path, params, cleanup := st.Path, "mode=ro&immutable=1", func() {}
	if beside := sqliteBeside(st.Path); len(beside) > 0 {
		dir, err := os.MkdirTemp("", "usage-sqlite-")
		if err != nil {
			return nil, nil, fmt.Errorf("open %s database: %w", what, err)
		}
		cleanup = func() { os.RemoveAll(dir) }
		path = filepath.Join(dir, "db")
		if err := sqliteCopy(st.Path, path, beside); err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("open %s database: copy it with its %s: %w", what, strings.Join(beside, ", "), err)
		}
		params = "mode=rw"
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: params + "&_pragma=busy_timeout(5000)"}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	db, err = sql.Open("sqlite", u.String())
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("open %s database: %w", what, err)
	}
	return db, func() { db.Close(); cleanup() }, nil
}

// sqliteBeside names the files beside a database that hold some of its
// content: a non-empty -wal or -journal.
func sqliteBeside(path string) []string {
	var out []string
	for _, suffix := range []string{"-wal", "-journal"} {
		if fi, err := os.Lstat(path + suffix); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			out = append(out, suffix)
		}
	}
	return out
}

// sqliteCopy copies the database at from, with the files beside it that
// suffixes name, to to; a copy taken while the agent wrote (a size or time
// changed meanwhile) is taken again, a few times.
func sqliteCopy(from, to string, suffixes []string) error {
	names := append([]string{""}, suffixes...)
	state := func() (string, error) {
		var b strings.Builder
		for _, n := range names {
			fi, err := os.Stat(from + n)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					b.WriteString("-|")
					continue
				}
				return "", err
			}
			fmt.Fprintf(&b, "%d:%d|", fi.Size(), fi.ModTime().UnixNano())
		}
		return b.String(), nil
	}
	for try := 0; ; try++ {
		before, err := state()
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := copyRegular(from+n, to+n); err != nil && !(n != "" && errors.Is(err, fs.ErrNotExist)) {
				return err
			}
		}
		after, err := state()
		if err != nil {
			return err
		}
		if before == after || try == 4 {
			return nil
		}
	}
}

// copyRegular copies the regular file at from to a new file at to.
func copyRegular(from, to string) error {
	src, err := regular.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
