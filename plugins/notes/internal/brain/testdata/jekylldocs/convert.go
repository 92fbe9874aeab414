//go:build ignore

// convert turns Jekyll's documentation (docs/_docs and docs/_tutorials of
// jekyll/jekyll) into brain notes as a person importing the pages would
// make them: one note per page, its front matter's title as the note's
// title and the page's Markdown, Liquid and all, as the body. It writes
// notes.jsonl.gz (path, title, body), the second corpus of the retrieval
// evaluation.
//
// Usage: go run convert.go JEKYLL/docs OUT.jsonl.gz
package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type doc struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run convert.go JEKYLL/docs OUT.jsonl.gz")
		os.Exit(2)
	}
	root := os.Args[1]
	var docs []doc
	for _, sub := range []string{"_docs", "_tutorials"} {
		base := filepath.Join(root, sub)
		err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(base, p)
			title, body := split(string(raw))
			if title == "" {
				title = strings.TrimSuffix(filepath.Base(p), ".md")
			}
			if strings.TrimSpace(body) == "" {
				return nil
			}
			name := strings.TrimPrefix(sub, "_") + "/" + filepath.ToSlash(rel)
			docs = append(docs, doc{Path: "wiki/sources/jekyll/" + name, Title: title, Body: strings.TrimSpace(body)})
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	f, err := os.Create(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	zw := gzip.NewWriter(f)
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := zw.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%d notes\n", len(docs))
}

// split returns a page's front-matter title and its body.
func split(s string) (title, body string) {
	if !strings.HasPrefix(s, "---\n") {
		return "", s
	}
	end := strings.Index(s[4:], "\n---")
	if end < 0 {
		return "", s
	}
	for _, l := range strings.Split(s[4:4+end], "\n") {
		if v, ok := strings.CutPrefix(l, "title:"); ok {
			title = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	rest := s[4+end+4:]
	return title, strings.TrimPrefix(rest, "\n")
}
