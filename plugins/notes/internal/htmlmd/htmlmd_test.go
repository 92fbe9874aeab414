package htmlmd

import (
	"os"
	"strings"
	"testing"
)

func TestConvert(t *testing.T) {
	for _, tc := range []struct {
		name, in, title string
		want            []string // substrings of the Markdown
		not             []string
	}{
		{name: "headings and paragraphs", in: "<html><head><title>T</title><style>p{}</style></head><body><h1>Top</h1><p>One  <b>bold</b>\nword.</p><h2>Sub</h2><p>Two</p><script>alert(1)</script></body></html>",
			title: "T", want: []string{"# Top\n\nOne **bold** word.\n\n## Sub\n\nTwo"}, not: []string{"alert", "p{}"}},
		{name: "title from h1", in: "<h1>Only <i>heading</i></h1>", title: "Only *heading*", want: []string{"# Only *heading*"}},
		{name: "links and images", in: `<p>See <a href="https://go.dev/doc">the docs</a>, <a href="javascript:x()">this</a> and <img src="a b.png" alt="fig"></p>`,
			want: []string{"See [the docs](https://go.dev/doc), this and ![fig](a%20b.png)"}},
		{name: "nested lists", in: "<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul><ol start=3><li>x</li><li>y</li></ol>",
			want: []string{"- a\n\n  - b\n- c", "3. x\n4. y"}},
		{name: "code", in: "<p>Run <code>go test</code>:</p><pre>line 1\n  line 2 ```</pre>", want: []string{"Run `go test`:", "````\nline 1\n  line 2 ```\n````"}},
		{name: "quote", in: "<blockquote><p>First</p><p>Second</p></blockquote>", want: []string{"> First\n>\n> Second"}},
		{name: "table", in: "<table><tr><th>Name</th><th>Cost</th></tr><tr><td>SQS</td><td>a|b</td></tr></table>",
			want: []string{"| Name | Cost |\n| --- | --- |\n| SQS | a\\|b |"}},
		{name: "broken markup", in: "<p>unclosed <b>bold<p>next", want: []string{"unclosed **bold**", "next"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Convert(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d.Title != tc.title {
				t.Errorf("title %q, want %q", d.Title, tc.title)
			}
			for _, w := range tc.want {
				if !strings.Contains(d.Markdown, w) {
					t.Errorf("markdown lacks %q:\n%s", w, d.Markdown)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(d.Markdown, n) {
					t.Errorf("markdown has %q:\n%s", n, d.Markdown)
				}
			}
		})
	}
}

// A real page: kubeconform's documentation (testdata/README.md).
func TestConvertRealPage(t *testing.T) {
	f, err := os.Open("testdata/kubeconform-crd-support.html")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Convert(f)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Kubeconform - Fast Kubernetes manifests validation! | Custom Resources support" {
		t.Errorf("title %q", d.Title)
	}
	for _, w := range []string{
		"# Custom Resources support",
		"When the `-schema-location` parameter is not used",
		"```\n$ ./bin/kubeconform fixtures/valid.yaml\n",
		"- *NormalizedKubernetesVersion* - Kubernetes Version, prefixed by v",
		"Website powered by [Hugo](https://gohugo.io/)",
	} {
		if !strings.Contains(d.Markdown, w) {
			t.Errorf("markdown lacks %q", w)
		}
	}
	if strings.ContainsAny(d.Markdown, "<>") && strings.Contains(d.Markdown, "<div") {
		t.Error("tags left in the markdown")
	}
}
