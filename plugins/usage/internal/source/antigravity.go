package source

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Antigravity reads Google Antigravity's conversations: one SQLite
// database a conversation, conversations/<id>.db, under
// ${ANTIGRAVITY_DATA_DIR} (comma list; each folder holds conversations/ or
// the databases themselves), else under ~/.gemini/antigravity,
// ~/.gemini/antigravity-cli, ~/.gemini/antigravity-ide,
// ~/.gemini/antigravity-backup and ~/.config/antigravity. Each row of a
// database's gen_metadata table is a protobuf message whose field 1 (the
// chat model's metadata) holds the usage (field 4: model number 1,
// input 2, cache read 5, output 9 and 10, response id 11), the generation's
// time (field 9's field 4, a Timestamp) and the model's label (field 19);
// trajectory_metadata_blob's field 2 is when the conversation began. A
// database without gen_metadata rows is read from its steps table instead
// (each step's metadata: field 1 its Timestamp, field 9 its usage: model
// number 1, input 2, output 3, cache read 5). Antigravity is closed
// source: the places, tables, fields and rules are those ccusage 20.0.24's
// adapters/antigravity reads, learnt from its answers on databases written
// field by field (tests/testdata/antigravity-gen), and agree with the
// layout other public readers of these files describe.
type Antigravity struct{}

var _ Provider = Antigravity{}

// Name returns "antigravity".
func (Antigravity) Name() string { return "antigravity" }

// antigravityRoots are the folders looked in.
func antigravityRoots(env Env) []string {
	if v := strings.TrimSpace(env("ANTIGRAVITY_DATA_DIR")); v != "" {
		return roots(v)
	}
	h := env.Home()
	if h == "" {
		return nil
	}
	var out []string
	for _, d := range []string{".gemini/antigravity", ".gemini/antigravity-cli", ".gemini/antigravity-ide",
		".gemini/antigravity-backup", ".config/antigravity"} {
		out = append(out, filepath.Join(h, filepath.FromSlash(d)))
	}
	return out
}

// Discover lists the conversation databases of each root: those in its
// conversations/ folder, else those in the root itself.
func (Antigravity) Discover(env Env) (Discovery, error) {
	dsc := Discovery{LookedIn: antigravityRoots(env)}
	for _, r := range dsc.LookedIn {
		ok, err := isDir(r)
		if err != nil {
			dsc.Problems = append(dsc.Problems, err)
			continue
		}
		if !ok {
			continue
		}
		dsc.Found = true
		dir := filepath.Join(r, "conversations")
		if ok, _ := isDir(dir); !ok {
			dir = r
		}
		dsc.Dirs = append(dsc.Dirs, dir)
		es, err := os.ReadDir(dir)
		if err != nil {
			dsc.Problems = append(dsc.Problems, err)
			continue
		}
		for _, e := range es {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".db") || name == ".db" {
				continue
			}
			dsc.Sources = append(dsc.Sources, Source{Path: filepath.Join(dir, name), Session: strings.TrimSuffix(name, ".db")})
		}
	}
	return dsc, nil
}

// antigravityMaxBlob bounds one metadata blob: a larger one is skipped
// unread (a garbage row must not cost the scan its memory).
const antigravityMaxBlob = 4 << 20

// antigravityMaxTokens bounds one token count; a larger one marks the row
// malformed.
const antigravityMaxTokens = 1_000_000_000

// errAntigravityRow is a metadata row that is not the message expected.
var errAntigravityRow = errors.New("malformed protobuf")

// antigravityUsage is one response's usage as a row holds it.
type antigravityUsage struct {
	model      uint64 // the model's number; 0: none
	label      string // the model's label; "": none
	in, out, r int64
	response   string
	ms         int64 // the generation's time; 0: none
}

// Parse reads the conversation (read-only): each gen_metadata row with
// tokens is a call, else each step with usage. A row's model is its
// number's name, else its label's, else (a gen_metadata row) the model of
// the row before, else "gemini-internal-model"; its time is the
// generation's, else the conversation's start, else the file's time. Rows
// of one response id count once, across conversations. A malformed row is
// skipped and counted; a conversation whose every row is malformed is an
// error.
func (Antigravity) Parse(ctx context.Context, st *FileState) error {
	db, closeDB, err := openDB(st, "antigravity")
	if err != nil {
		return err
	}
	defer closeDB()
	tables := map[string]bool{}
	if err := eachRow(ctx, db, `SELECT name FROM sqlite_master WHERE type = 'table'`, func(rows *sql.Rows) error {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		tables[name] = true
		return nil
	}); err != nil {
		return fmt.Errorf("read antigravity %s: %w", filepath.Base(st.Path), err)
	}
	began := int64(0)
	if tables["trajectory_metadata_blob"] {
		err := eachBlob(ctx, db, "trajectory_metadata_blob", "data", "rowid", func(_ int64, b []byte) error {
			if ms := pbTime(pbMessage(b, 2)); ms > 0 && began == 0 {
				began = ms
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("read antigravity %s: %w", filepath.Base(st.Path), err)
		}
	}
	var usages []antigravityUsage
	bad := 0
	read := func(decode func([]byte) (antigravityUsage, error)) func(int64, []byte) error {
		return func(_ int64, b []byte) error {
			st.Lines++
			u, err := decode(b)
			if err != nil {
				st.Skipped++
				bad++
				return nil
			}
			usages = append(usages, u)
			return nil
		}
	}
	if tables["gen_metadata"] {
		if err := eachBlob(ctx, db, "gen_metadata", "data", "idx", read(antigravityGen)); err != nil {
			return fmt.Errorf("read antigravity %s: %w", filepath.Base(st.Path), err)
		}
	}
	fromSteps := len(usages) == 0 && bad == 0 && tables["steps"]
	if fromSteps {
		if err := eachBlob(ctx, db, "steps", "metadata", "idx", read(antigravityStep)); err != nil {
			return fmt.Errorf("read antigravity %s: %w", filepath.Base(st.Path), err)
		}
	}
	if len(usages) == 0 && bad > 0 {
		return fmt.Errorf("read antigravity %s: its %d metadata row(s) are not the protobuf messages Antigravity writes", filepath.Base(st.Path), bad)
	}
	if began == 0 {
		began = st.ModTime / 1e6
	}
	model := ""
	for _, u := range usages {
		switch {
		case u.model != 0:
			model = antigravityModelNumber(u.model)
		case u.label != "":
			model = antigravityModelLabel(u.label)
		case model == "" || fromSteps:
			model = "gemini-internal-model"
		}
		if u.in == 0 && u.out == 0 && u.r == 0 {
			continue
		}
		ms := u.ms
		if ms <= 0 {
			ms = began
		}
		c := Call{Time: ms, Origin: st.origin("antigravity", "", "", st.Session, model),
			In: tok(u.in), Out: tok(u.out), CR: tok(u.r)}
		if u.response != "" {
			c.Key = keyOf([]byte("antigravity"), []byte(u.response))
		}
		st.add(c, nil)
	}
	return nil
}

// eachRow runs query and calls fn for each row.
func eachRow(ctx context.Context, db *sql.DB, query string, fn func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// eachBlob calls fn with each non-null blob of table's column in order's
// order; a blob over antigravityMaxBlob is passed as nil (not loaded).
func eachBlob(ctx context.Context, db *sql.DB, table, column, order string, fn func(idx int64, b []byte) error) error {
	q := fmt.Sprintf(`SELECT %[3]s, CASE WHEN length(%[2]s) <= %[4]d THEN %[2]s END FROM %[1]s WHERE %[2]s IS NOT NULL ORDER BY %[3]s ASC`,
		table, column, order, antigravityMaxBlob)
	return eachRow(ctx, db, q, func(rows *sql.Rows) error {
		var idx sql.NullInt64
		var b []byte
		if err := rows.Scan(&idx, &b); err != nil {
			return err
		}
		return fn(idx.Int64, b)
	})
}

// antigravityGen decodes a gen_metadata row.
func antigravityGen(b []byte) (antigravityUsage, error) {
	var u antigravityUsage
	if !pbValid(b) {
		return u, errAntigravityRow
	}
	chat := pbMessage(b, 1)
	if chat == nil || !pbValid(chat) {
		return u, errAntigravityRow
	}
	usage := pbMessage(chat, 4)
	if !pbValid(usage) {
		return u, errAntigravityRow
	}
	u.model = pbVarint(usage, 1)
	u.label = strings.TrimSpace(string(pbMessage(chat, 19)))
	u.response = strings.TrimSpace(string(pbMessage(usage, 11)))
	var err error
	if u.in, err = pbTokens(usage, 2); err != nil {
		return u, err
	}
	if u.r, err = pbTokens(usage, 5); err != nil {
		return u, err
	}
	out, err := pbTokens(usage, 9)
	if err != nil {
		return u, err
	}
	thinking, err := pbTokens(usage, 10)
	if err != nil {
		return u, err
	}
	u.out = out + thinking
	u.ms = pbTime(pbMessage(pbMessage(chat, 9), 4))
	return u, nil
}

// antigravityStep decodes a step's metadata.
func antigravityStep(b []byte) (antigravityUsage, error) {
	var u antigravityUsage
	if !pbValid(b) {
		return u, errAntigravityRow
	}
	usage := pbMessage(b, 9)
	if !pbValid(usage) {
		return u, errAntigravityRow
	}
	u.model = pbVarint(usage, 1)
	var err error
	if u.in, err = pbTokens(usage, 2); err != nil {
		return u, err
	}
	if u.out, err = pbTokens(usage, 3); err != nil {
		return u, err
	}
	if u.r, err = pbTokens(usage, 5); err != nil {
		return u, err
	}
	u.ms = pbTime(pbMessage(b, 1))
	return u, nil
}

// pbValid reports whether b parses as protobuf fields to its end (nil is
// an empty message). A nil b standing for a blob too large to load is
// caught by its caller's missing fields.
func pbValid(b []byte) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return false
		}
		b = b[m:]
	}
	return true
}

// pbField returns the last value of field num in b with wire type typ,
// as protobuf's merge rule reads a repeated singular field: the bytes of
// a length-delimited one, the number of a varint.
func pbField(b []byte, num protowire.Number, typ protowire.Type) (v uint64, bs []byte, ok bool) {
	for len(b) > 0 {
		n, t, k := protowire.ConsumeTag(b)
		if k < 0 {
			return v, bs, ok
		}
		b = b[k:]
		if n == num && t == typ {
			switch typ {
			case protowire.VarintType:
				x, m := protowire.ConsumeVarint(b)
				if m < 0 {
					return v, bs, ok
				}
				v, ok = x, true
			case protowire.BytesType:
				x, m := protowire.ConsumeBytes(b)
				if m < 0 {
					return v, bs, ok
				}
				bs, ok = x, true
			}
		}
		m := protowire.ConsumeFieldValue(n, t, b)
		if m < 0 {
			return v, bs, ok
		}
		b = b[m:]
	}
	return v, bs, ok
}

// pbMessage is the bytes of field num (a message or string), nil when
// absent.
func pbMessage(b []byte, num protowire.Number) []byte {
	_, bs, _ := pbField(b, num, protowire.BytesType)
	return bs
}

// pbVarint is the varint field num, 0 when absent.
func pbVarint(b []byte, num protowire.Number) uint64 {
	v, _, _ := pbField(b, num, protowire.VarintType)
	return v
}

// pbTokens is the token count in field num; one over the bound is an
// error.
func pbTokens(b []byte, num protowire.Number) (int64, error) {
	v := pbVarint(b, num)
	if v > antigravityMaxTokens {
		return 0, errAntigravityRow
	}
	return int64(v), nil
}

// pbTime reads a google.protobuf.Timestamp (seconds 1, nanos 2) as Unix
// milliseconds; 0 when absent or out of range.
func pbTime(b []byte) int64 {
	if b == nil {
		return 0
	}
	sec, nanos := int64(pbVarint(b, 1)), pbVarint(b, 2)
	if sec <= 0 || sec > 253402300799 || nanos > 999_999_999 {
		return 0
	}
	return sec*1000 + int64(nanos)/1e6
}

// antigravityModels names the model numbers ccusage 20.0.24 names (the
// numbers of Antigravity's model enum, 1000 and above its placeholders);
// another number below 1000 is "antigravity-model-<n>", one from 1000
// "model_placeholder_m<n-1000>", as ccusage names them.
var antigravityModels = map[uint64]string{
	246: "gemini-2.5-pro", 281: "claude-4-sonnet", 282: "claude-4-sonnet", 290: "claude-4-opus", 291: "claude-4-opus",
	312: "gemini-2.5-flash", 313: "gemini-2.5-flash-thinking", 329: "gemini-2.5-flash-thinking", 330: "gemini-2.5-flash-lite",
	333: "claude-4.5-sonnet", 334: "claude-4.5-sonnet", 340: "claude-4.5-haiku", 341: "claude-4.5-haiku", 342: "gpt-oss-120b-medium",
	1016: "gemini-3.1-pro", 1018: "gemini-3-flash-preview", 1020: "gemini-3.5-flash-medium", 1026: "claude-opus-4-6",
	1035: "claude-sonnet-4-6", 1036: "gemini-3.1-pro", 1037: "gemini-3.1-pro", 1047: "gemini-3-flash-preview",
	1071: "gemini-3.6-flash-high", 1072: "gemini-3.6-flash-medium", 1073: "gemini-3.6-flash-low", 1084: "gemini-3-flash-preview",
	1132: "gemini-3.5-flash-high", 1133: "gemini-3.5-flash-high", 1187: "gemini-3.5-flash-extra-low",
	1298: "gemini-3.7-flash-high", 1299: "gemini-3.7-flash-medium", 1300: "gemini-3.7-flash-low",
	1318: "gemini-3.8-flash-high", 1319: "gemini-3.8-flash-medium", 1320: "gemini-3.8-flash-low",
}

// antigravityModelNumber names a model number.
func antigravityModelNumber(n uint64) string {
	if m, ok := antigravityModels[n]; ok {
		return m
	}
	if n >= 1000 {
		return "model_placeholder_m" + strconv.FormatUint(n-1000, 10)
	}
	return "antigravity-model-" + strconv.FormatUint(n, 10)
}

// antigravityLabels are the model labels (ids and display names, lower
// case) ccusage 20.0.24 names otherwise than by the general rule.
var antigravityLabels = map[string]string{
	"gemini-pro-default":               "gemini-3.1-pro",
	"gemini-3-flash-agent":             "gemini-3.5-flash-high",
	"gemini-3-flash-agent-a":           "gemini-3.5-flash-high",
	"gemini-3-flash-agent-b":           "gemini-3.5-flash-high",
	"gemini-3-flash-a":                 "gemini-3.5-flash-high",
	"gemini-3-flash":                   "gemini-3-flash-preview",
	"gemini-3.5-flash-low":             "gemini-3.5-flash-medium",
	"gemini-3-pro-high":                "gemini-3-pro",
	"gemini-3-pro-low":                 "gemini-3-pro",
	"gemini-3.1-pro-high":              "gemini-3.1-pro",
	"gemini-3.1-pro-low":               "gemini-3.1-pro",
	"gemini 3 flash":                   "gemini-3.6-flash",
	"gemini 2 flash":                   "gemini-2.0-flash",
	"gemini 3 pro (high)":              "gemini-3-pro",
	"gemini 3 pro (low)":               "gemini-3-pro",
	"claude 3.7 sonnet":                "claude-3-7-sonnet",
	"claude 3.5 sonnet":                "claude-3-5-sonnet",
	"claude 3 opus":                    "claude-3-opus",
	"model_openai_gpt_oss_120b_medium": "gpt-oss-120b-medium",
}

// antigravityPlaceholder is a label naming a placeholder model number.
var antigravityPlaceholder = regexp.MustCompile(`^model_placeholder_m([0-9]{1,6})$`)

// antigravityModelLabel names the model a label names: lower case, a
// display name's " thinking" dropped, its "(high)" a "-high" suffix and
// its spaces dashes; a placeholder label is its number's model.
func antigravityModelLabel(label string) string {
	l := strings.ToLower(strings.TrimSpace(label))
	if m := antigravityPlaceholder.FindStringSubmatch(l); m != nil {
		n, _ := strconv.ParseUint(m[1], 10, 64)
		return antigravityModelNumber(1000 + n)
	}
	l = strings.TrimSuffix(l, " thinking")
	if m, ok := antigravityLabels[l]; ok {
		return m
	}
	l = strings.NewReplacer(" (", "-", "(", "-", ")", "", " ", "-").Replace(l)
	if m, ok := antigravityLabels[l]; ok {
		return m
	}
	return l
}
