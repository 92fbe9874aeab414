package note

import (
	"strings"
	"testing"
)

func TestParseRenderRoundTrip(t *testing.T) {
	raw := "---\nid: 01KR2K2ER8WSC66YEXP487Q72D\ntype: fact\ntitle: Atlas uses SQS\nvalid_from: 2026-05-03\nrelations:\n  uses: ['[[SQS]]']\ncustom: kept\n---\n\nBody [[SQS]].\n"
	n := Parse("memory/facts/a.md", []byte(raw))
	if n.FMError != "" || !n.HasFM {
		t.Fatalf("parse: %q", n.FMError)
	}
	if n.FM.ValidFrom != "2026-05-03" || n.FM.Relations["uses"][0] != "[[SQS]]" || n.FM.Extra["custom"] != "kept" {
		t.Fatalf("fields: %+v", n.FM)
	}
	back := Parse(n.Path, n.Render())
	if back.FM.ID != n.FM.ID || back.Body != n.Body || back.FM.Extra["custom"] != "kept" {
		t.Fatalf("round trip: %+v / %q", back.FM, back.Body)
	}
}

func TestParseBrokenAndMissingFrontmatter(t *testing.T) {
	tests := []struct {
		name, raw  string
		hasFM, bad bool
	}{
		{"none", "just text\n", false, false},
		{"broken", "---\ntype: [x\n---\nbody", true, true},
		{"unclosed", "---\ntype: x\nbody", false, false},
		{"bom", "\ufeff---\ntype: concept\n---\nbody", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := Parse("a.md", []byte(tt.raw))
			if n.HasFM != tt.hasFM || (n.FMError != "") != tt.bad {
				t.Fatalf("HasFM %v FMError %q", n.HasFM, n.FMError)
			}
		})
	}
}

func TestValidity(t *testing.T) {
	tests := []struct{ from, until, exp, asOf, want string }{
		{"", "", "", "2026-01-01", Current},
		{"2026-05-03", "", "", "2026-03-01", NotYetValid},
		{"2026-01-14", "2026-05-03", "", "2026-05-03", Expired},
		{"2026-01-14", "2026-05-03", "", "2026-05-02", Current},
		{"", "", "2026-12-13", "2026-12-13", Expired},
	}
	for _, tt := range tests {
		if got := Validity(tt.from, tt.until, tt.exp, tt.asOf); got != tt.want {
			t.Errorf("Validity(%q,%q,%q,%q) = %s, want %s", tt.from, tt.until, tt.exp, tt.asOf, got, tt.want)
		}
	}
}

func TestSlug(t *testing.T) {
	tests := map[string]string{
		"Respostas em português":                "respostas-em-portugues",
		"  Projeto Atlas uses_queue [[Kafka]] ": "projeto-atlas-uses-queue-kafka",
		"???":                                   "note",
	}
	for in, want := range tests {
		if got := Slug(in, 60); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Slug(strings.Repeat("a", 100), 60); len(got) != 60 {
		t.Errorf("Slug length %d", len(got))
	}
}

func TestValidate(t *testing.T) {
	f := Frontmatter{Type: "fact", Trust: "ultra", Scope: "team", ValidFrom: "soon"}
	if got := f.Validate(); len(got) != 4 {
		t.Fatalf("got %v, want 4 problems", got)
	}
}

func FuzzParseRender(f *testing.F) {
	f.Add("---\ntype: concept\ntitle: x\n---\n\nbody\n")
	f.Add("no frontmatter")
	f.Add("---\n: bad\n---\n")
	f.Fuzz(func(t *testing.T, raw string) {
		n := Parse("a.md", []byte(raw))
		if n.FMError != "" {
			return
		}
		back := Parse("a.md", n.Render())
		if back.FMError != "" {
			t.Fatalf("rendered note does not parse: %v\n%q", back.FMError, n.Render())
		}
		if back.FM.ID != n.FM.ID || back.FM.Type != n.FM.Type || back.FM.Title != n.FM.Title {
			t.Fatalf("round trip changed fields: %+v vs %+v", back.FM, n.FM)
		}
	})
}
