package table

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestTableFits(t *testing.T) {
	long := "keyword search and search by meaning, fused by reciprocal rank"
	tests := []struct {
		name  string
		table Table
		want  string
	}{
		{"fits: natural widths", Table{Header: []string{"A", "BB"}, Rows: [][]string{{"x", "y"}}, Width: 80},
			"A  BB\nx  y\n"},
		{"no limit", Table{Header: []string{"NAME", "WHY"}, Rows: [][]string{{"n", long}}},
			"NAME  WHY\nn     " + long + "\n"},
		{"wraps the text column at words", Table{Header: []string{"NAME", "WHY"}, Rows: [][]string{{"claude-sonnet-4-5", long}}, Width: 50},
			"NAME               WHY\nclaude-sonnet-4-5  keyword search and search by\n                   meaning, fused by reciprocal\n                   rank\n"},
		{"a cell's own lines stay in its column", Table{Rows: [][]string{{"a", "one\ntwo"}, {"b", "three"}}, Width: 20},
			"a  one\n   two\nb  three\n"},
		{"right-aligned numbers", Table{Header: []string{"M", "N"}, Rows: [][]string{{"x", "5"}, {"y", "120"}}, Align: []Align{AlignLeft, AlignRight}, Width: 40},
			"M    N\nx    5\ny  120\n"},
		{"columns left out, last first, with a note", Table{Header: []string{"MODEL", "COST", "INPUT", "OUTPUT"},
			Rows: [][]string{{"claude-opus-4-5", "$12.00", "1,234,567", "7,654,321"}}, Width: 36},
			"MODEL            COST    INPUT\nclaude-opus-4-5  $12.00  1,234,567\n(left out: OUTPUT; to fit 36\ncolumns)\n"},
		{"columns left out by priority", Table{Header: []string{"NAME", "VERSION", "STATUS"}, Priority: []int{2, 0, 1},
			Rows: [][]string{{"notes", "0.1.0", "not ready: the handshake failed"}}, Width: 22, LeftOut: "--json shows them"},
			"NAME   STATUS\nnotes  not ready: the\n       handshake\n       failed\n(left out: VERSION;\n--json shows them)\n"},
		{"rows stacked when they do not fit", Table{Header: []string{"ID", "TITLE", "PATH"}, Stack: true, Width: 36,
			Rows: [][]string{{"01ABCDEFGHJKMNPQRSTVWXYZ00", "Queues", "memory/gotchas/queues.md"}, {"01B", "Locks", ""}}},
			"ID     01ABCDEFGHJKMNPQRSTVWXYZ00\nTITLE  Queues\nPATH   memory/gotchas/queues.md\n\nID     01B\nTITLE  Locks\n"},
		{"a stacked value narrower than its longest word breaks it", Table{Header: []string{"ID", "PATH"}, Stack: true, Width: 20,
			Rows: [][]string{{"01ABCDEFGHJKMNPQRSTVWXYZ00", "memory/gotchas/queues.md"}}},
			"ID    01ABCDEFGHJKMN\n      PQRSTVWXYZ00\nPATH  memory/\n      gotchas/\n      queues.md\n"},
		{"a path longer than a name breaks after a slash", Table{Rows: [][]string{{"x", "/tmp/toolhost-e2e-1234567890/plugins/dies/dies"}}, Width: 36},
			"x  /tmp/toolhost-e2e-1234567890/\n   plugins/dies/dies\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.table.String()
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s\n(%q)", got, tt.want, got)
			}
			if tt.table.Width > 0 {
				for _, line := range strings.Split(got, "\n") {
					if ansi.StringWidth(line) > tt.table.Width {
						t.Errorf("line %q is wider than %d", line, tt.table.Width)
					}
				}
			}
		})
	}
}
