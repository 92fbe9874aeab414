package docs

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the repository's root folder (this package's parent).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestManifestReferenceCurrent fails when manifests/tool.schema.json changed
// and docs/manifest-reference.md was not regenerated.
func TestManifestReferenceCurrent(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join(repoRoot(t), "manifests", "tool.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ManifestReference(schema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("manifest-reference.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("docs/manifest-reference.md is not what manifests/tool.schema.json gives: run `go generate ./docs` and commit it")
	}
}

// TestManifestReferenceCoversSchema checks the reference names every field
// the schema declares, so a field added to the schema shows up.
func TestManifestReferenceCoversSchema(t *testing.T) {
	schema := []byte(`{"description":"D.","properties":{"name":{"type":"string"},"brand-new":{"type":"integer","default":3,"description":"Fresh."}},
		"required":["name"],"$defs":{"secret":{"properties":{}},"action":{"properties":{}},"mcp_action":{"properties":{}},"arg":{"properties":{"x":{"type":"boolean"}}}}}`)
	ref, err := ManifestReference(schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| `name` | string | yes |", "| `brand-new` | integer |  | `3` | Fresh. |", "| `x` | boolean |"} {
		if !strings.Contains(ref, want) {
			t.Errorf("reference lacks %q:\n%s", want, ref)
		}
	}
	if _, err := ManifestReference([]byte(`{"properties":{}}`)); err == nil {
		t.Error("a schema without $defs.secret rendered; want an error naming it")
	}
}

// mdLink matches an inline Markdown link or image target, and a reference
// definition ("[name]: target").
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)|(?m)^\s*\[[^\]]+\]:\s*(\S+)`)

// codePath matches a backticked path starting with a top-level folder of
// the repository or with "../".
var codePath = regexp.MustCompile("`((?:\\.\\./|docs/|examples/|host/|internal/|manifests/|plugins/|registry/|scripts/|sdk/|skills/|surfaces/|testdata/|tests/)[^`\\s]*)`")

// markdownFiles picks the Markdown files out of paths (repoPaths' list),
// leaving out test data (documents that are the input of tests, not
// documentation); it returns them joined to root.
func markdownFiles(root string, paths []string) []string {
	var files []string
	for _, p := range paths {
		if strings.HasSuffix(p, ".md") && !strings.HasPrefix(path.Base(p), ".") && !slices.Contains(strings.Split(p, "/"), "testdata") {
			files = append(files, filepath.Join(root, filepath.FromSlash(p)))
		}
	}
	return files
}

// brokenLinks returns, for one Markdown file, each link or named path that
// leaves the repository or names nothing in it. paths lists the
// repository's files and folders (slash-separated, relative to root).
func brokenLinks(root, file, text string, paths []string) []string {
	var bad []string
	dir := filepath.Dir(file)
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target := m[1] + m[2]
		switch {
		case strings.HasPrefix(target, "#"):
			continue
		case strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:"):
			bad = append(bad, target+": links outside the repository (the project carries its own docs)")
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		if msg := checkLink(root, dir, target); msg != "" {
			bad = append(bad, msg)
		}
	}
	for _, m := range codePath.FindAllStringSubmatch(text, -1) {
		if msg := checkNamed(root, dir, m[1], paths); msg != "" {
			bad = append(bad, msg)
		}
	}
	return bad
}

// inside reports whether path is root or below it.
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkLink says what is wrong with a link target written in a file of
// folder dir, or "".
func checkLink(root, dir, target string) string {
	p := filepath.Join(dir, filepath.FromSlash(target))
	if !inside(root, p) {
		return target + ": leaves the repository"
	}
	if _, err := os.Stat(p); err != nil {
		return target + ": no such file or folder in the repository"
	}
	return ""
}

// checkNamed says what is wrong with a path a file of folder dir names in
// backticks, or "". It may be written from the file's folder, from the
// repository's root, or as the tail of a longer path ("testdata/gitleaks"
// in a table row about internal/secrets); it may be a build output (a
// plugin's binary beside its tool.yaml); a pattern ("plugins/NAME/NAME",
// "<pkg>/testdata") is not checked.
func checkNamed(root, dir, target string, paths []string) string {
	clean := strings.TrimSuffix(target, "/")
	local := filepath.Join(dir, filepath.FromSlash(clean))
	if strings.HasPrefix(clean, "../") && !inside(root, local) {
		return target + ": leaves the repository"
	}
	if placeholder(target) {
		return ""
	}
	for _, c := range []string{local, filepath.Join(root, filepath.FromSlash(clean))} {
		if _, err := os.Stat(c); err == nil || isBuildOutput(c) {
			return ""
		}
	}
	for _, p := range paths {
		if p == clean || strings.HasSuffix(p, "/"+clean) {
			return ""
		}
	}
	return target + ": no such file or folder in the repository"
}

// placeholder reports whether a named path is a pattern rather than a file:
// it holds a glob, a variable or an ellipsis, or a segment that is an
// upper-case word (NAME, TOOL).
func placeholder(path string) bool {
	if strings.ContainsAny(path, "*$<>{}…") {
		return true
	}
	for _, seg := range strings.Split(path, "/") {
		if seg != "" && strings.ToUpper(seg) == seg && strings.Trim(seg, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_-") == "" {
			return true
		}
	}
	return false
}

// isBuildOutput reports whether path is what `make` builds: a plugin's
// binary (named after its folder, beside a tool.yaml).
func isBuildOutput(path string) bool {
	dir := filepath.Dir(path)
	_, err := os.Stat(filepath.Join(dir, "tool.yaml"))
	return err == nil && filepath.Base(dir) == filepath.Base(path)
}

// repoPaths lists the repository's files and folders, relative to root,
// slash-separated (hidden folders and node_modules left out).
func repoPaths(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMarkdownLinks checks every repository-local link and every
// backticked repository path of every Markdown file: each must name a file
// or folder that exists (or that `make` builds), and none may leave the
// repository. It fetches no URL: a link to one is itself an error.
func TestMarkdownLinks(t *testing.T) {
	root := repoRoot(t)
	paths := repoPaths(t, root)
	files := markdownFiles(root, paths)
	if len(files) < 5 {
		t.Fatalf("found only %d Markdown files under %s", len(files), root)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, msg := range brokenLinks(root, f, string(b), paths) {
			t.Errorf("%s: %s", rel, msg)
		}
	}
}

// TestBrokenLinksFound feeds brokenLinks the mistakes it exists to catch.
func TestBrokenLinksFound(t *testing.T) {
	root := repoRoot(t)
	file := filepath.Join(root, "plugins", "notes", "README.md")
	paths := repoPaths(t, root)
	tests := []struct {
		name, text string
		bad        int
	}{
		{"existing relative link", "see [xlsx](../xlsx/README.md#args)", 0},
		{"missing file", "see [x](../xlsx/NOPE.md)", 1},
		{"leaves the repository", "see [seed](../../../shared/DESIGN.md)", 1},
		{"a URL", "see [site](https://example.org/)", 1},
		{"anchor only", "see [below](#setup)", 0},
		{"named path exists", "the format is in `docs/design.md`", 0},
		{"named path missing", "the format is in `docs/nothing-here.md`", 1},
		{"named path leaving", "spec: `../../../shared/seeds/003_*.txt`", 1},
		{"named file leaving", "decisions: `../../../shared/DESIGN.md` §7", 1},
		{"tail of a path", "samples in `testdata/gitleaks`", 0},
		{"placeholder", "run `plugins/NAME/NAME`", 0},
		{"build output", "run `plugins/xlsx/xlsx read-sheet`", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := brokenLinks(root, file, tt.text, paths); len(got) != tt.bad {
				t.Errorf("got %d problems %q, want %d", len(got), got, tt.bad)
			}
		})
	}
}

// TestNoDesignBriefReferences: the team's design brief (DESIGN.md) is not
// part of the repository, so no document or code comment may send a reader
// to it; docs/design.md is the project's own.
func TestNoDesignBriefReferences(t *testing.T) {
	root := repoRoot(t)
	brief := regexp.MustCompile(`(^|[^/a-z])DESIGN\.md`)
	for _, p := range repoPaths(t, root) {
		if !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".proto") {
			continue
		}
		if strings.Contains(p, "/testdata/") || strings.HasPrefix(p, "testdata/") || p == "docs/docs_test.go" ||
			strings.HasPrefix(filepath.Base(p), ".") { // not part of the repository's docs (a local note)
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if brief.MatchString(line) {
				t.Errorf("%s:%d names DESIGN.md, which is not in the repository (point at docs/design.md): %s", p, i+1, strings.TrimSpace(line))
			}
		}
	}
}
