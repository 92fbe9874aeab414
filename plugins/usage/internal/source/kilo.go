package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Kilo reads Kilo Code CLI's database, ${KILO_DATA_DIR:-~/.local/share/kilo}
// (comma list)/kilo.db. Kilo Code's CLI is a fork of OpenCode and keeps its
// schema (Kilo-Org/kilocode, OpenCode's session/message-v2.ts): the message
// table's JSON data of assistant messages, read as OpenCode's are. The
// places and fields are those ccusage 20's adapter/kilo reads (its
// paths.rs, loader.rs and parser.rs with their fixtures).
type Kilo struct{}

var _ Provider = Kilo{}

// Name returns "kilo".
func (Kilo) Name() string { return "kilo" }

// Discover finds each root's kilo.db.
func (Kilo) Discover(env Env) (Discovery, error) {
	rootDirs := rootsOr(env, "KILO_DATA_DIR", ".local", "share", "kilo")
	var dsc Discovery
	for _, r := range rootDirs {
		db := filepath.Join(r, "kilo.db")
		dsc.LookedIn = append(dsc.LookedIn, db)
		fi, err := os.Stat(db)
		if err != nil {
			if !os.IsNotExist(err) {
				dsc.Found = true
				dsc.Problems = append(dsc.Problems, fmt.Errorf("kilo's %s could not be read (%w): check its permissions", db, unwrapPath(err)))
			}
			continue
		}
		if fi.IsDir() {
			continue
		}
		dsc.Found = true
		dsc.Sources = append(dsc.Sources, Source{Path: db})
		dsc.Dirs = append(dsc.Dirs, r)
	}
	return dsc, nil
}

// Parse reads every assistant message of the database (read-only); a
// message without time.created is skipped, as ccusage skips it.
func (Kilo) Parse(ctx context.Context, st *FileState) error {
	return parseMessageDB(ctx, st, "kilo", `SELECT id, session_id, NULL, data FROM message`)
}
