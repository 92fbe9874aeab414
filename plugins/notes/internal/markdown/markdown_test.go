package markdown

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHeadings(t *testing.T) {
	body := "Intro\n\n# Título\n\ntext\n\n## Sub *one*\n\nmore\n\n# Other\n"
	d := Parse(body)
	type h = Heading
	got := d.Headings
	want := []h{
		{1, "Título", []string{"Título"}, 3, strings.Index(body, "# T"), strings.Index(body, "# O")},
		{2, "Sub one", []string{"Título", "Sub one"}, 7, strings.Index(body, "## S"), strings.Index(body, "# O")},
		{1, "Other", []string{"Other"}, 11, strings.Index(body, "# O"), len(body)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("headings (-want +got):\n%s", diff)
	}
	if body[want[1].Offset:want[1].Offset+2] != "##" {
		t.Fatalf("offset does not point at the heading line")
	}
	if s, ok := d.Section("Título › Sub one"); !ok || s.Text != "Sub one" {
		t.Fatalf("Section path: got %+v %v", s, ok)
	}
}

func TestParseLinksSkipsCode(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"plain", "See [[SQS]] and [[Projeto Atlas|Atlas]].", []string{"SQS", "Projeto Atlas"}},
		{"section", "[[Idempotência#Chaves]]", []string{"Idempotência"}},
		{"inline code", "Use `[[NotALink]]` but [[Real]]", []string{"Real"}},
		{"fenced", "```\n[[InFence]]\n```\nafter [[Out]]", []string{"Out"}},
		{"tilde fence", "~~~go\nx := a[[0]]\n~~~\n", nil},
		{"indented code", "para\n\n    [[Indented]]\n\ntext [[T]]", []string{"T"}},
		{"nested brackets", "m[[i]][[j]]", []string{"i", "j"}},
		{"empty", "[[ ]]", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range Parse(tt.body).Links {
				got = append(got, l.Target)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("links (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseLink(t *testing.T) {
	got := parseLink("Target#Sec|Label")
	want := Link{Target: "Target", Section: "Sec", Label: "Label"}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if Unwrap("[[X|y]]") != "X" || Unwrap(" plain ") != "plain" {
		t.Fatal("Unwrap")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("# a\n[[b]]\n```\n[[c]]\n```")
	f.Fuzz(func(t *testing.T, s string) {
		d := Parse(s)
		for _, h := range d.Headings {
			if h.Offset < 0 || h.Offset > len(s) || h.End < h.Offset {
				t.Fatalf("bad heading %+v", h)
			}
		}
	})
}
