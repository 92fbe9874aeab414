//go:build ignore

// split turns Git's documentation (Documentation/*.adoc and
// Documentation/config/*.adoc of git/git) into brain notes: one note per
// section of a manual page, one per option or subcommand entry, one per
// configuration variable. It writes notes.jsonl.gz (path, title, body), the
// retrieval evaluation's corpus.
//
//	go run split.go /path/to/git/Documentation > /dev/stdout
//
// Usage: go run split.go DOCDIR OUT.jsonl.gz
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type doc struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

var (
	underline = regexp.MustCompile(`^(-+|=+|~+|\^+)$`)
	termLine  = regexp.MustCompile(`^\S.*::\s*$`)
	slugBad   = regexp.MustCompile(`[^a-z0-9]+`)
	hasLetter = regexp.MustCompile(`^[A-Za-z]`)
)

// skip are the sections that carry no prose of their own.
var skip = map[string]bool{"NAME": true, "SYNOPSIS": true, "SEE ALSO": true, "GIT": true, "AUTHOR": true, "DOCUMENTATION": true, "REPORTING BUGS": true}

// listy are the sections split at each definition-list entry.
var listy = map[string]bool{"OPTIONS": true, "COMMANDS": true, "SUBCOMMANDS": true, "CONFIGURATION": true, "VARIABLES": true}

func slug(s string) string {
	s = strings.Trim(slugBad.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 60 {
		s = strings.Trim(s[:60], "-")
	}
	return s
}

// clean drops asciidoc markup a reader would not type.
func clean(lines []string) string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "include::"), strings.HasPrefix(t, "ifdef::"), strings.HasPrefix(t, "ifndef::"), strings.HasPrefix(t, "endif::"),
			strings.HasPrefix(t, "[["), strings.HasPrefix(t, "//"), t == "+", t == "[verse]", t == "[synopsis]", t == "[listing]",
			strings.Trim(t, "-") == "" && len(t) >= 4, strings.Trim(t, "=") == "" && len(t) >= 4, strings.Trim(t, ".") == "" && len(t) >= 4:
			continue
		}
		out = append(out, t)
	}
	s := strings.TrimSpace(strings.Join(out, "\n"))
	s = regexp.MustCompile(`linkgit:([a-z0-9-]+)\[(\d)\]`).ReplaceAllString(s, "$1($2)")
	s = regexp.MustCompile(`\n{3,}`).ReplaceAllString(s, "\n\n")
	return s
}

func main() {
	dir, outFile := os.Args[1], os.Args[2]
	var docs []doc
	seen := map[string]bool{}
	add := func(folder, page, section, term string, body []string) {
		text := clean(body)
		if len(strings.Fields(text)) < 8 {
			return
		}
		title := page
		if section != "" {
			title += ": " + strings.ToLower(section)
		}
		if term != "" {
			title += " " + term
		}
		p := folder + "/" + slug(page)
		if section != "" {
			p += "--" + slug(section)
		}
		if term != "" {
			p += "--" + slug(term)
		}
		base := p
		for i := 2; seen[p]; i++ {
			p = fmt.Sprintf("%s-%d", base, i)
		}
		seen[p] = true
		docs = append(docs, doc{Path: p + ".md", Title: title, Body: text})
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.adoc"))
	configs, _ := filepath.Glob(filepath.Join(dir, "config", "*.adoc"))
	for _, f := range append(pages, configs...) {
		raw, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		lines := strings.Split(strings.ReplaceAll(string(raw), "\r", ""), "\n")
		name := strings.TrimSuffix(filepath.Base(f), ".adoc")
		isConfig := filepath.Base(filepath.Dir(f)) == "config"
		page := name
		folder := "wiki/sources"
		if isConfig {
			page = "config " + name
			folder = "wiki/concepts"
		}
		section := ""
		if strings.HasSuffix(name, "-options") {
			section = "OPTIONS" // a file of options included into manual pages
		}
		if isConfig {
			section = "VARIABLES"
		}
		var body []string
		term := ""
		flush := func() {
			if !skip[section] && (len(body) > 0) {
				add(folder, page, section, term, body)
			}
			body, term = nil, ""
		}
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			if i+1 < len(lines) && underline.MatchString(lines[i+1]) && hasLetter.MatchString(l) &&
				len(lines[i+1]) >= len(strings.TrimSpace(l))-1 && len(lines[i+1]) <= len(strings.TrimSpace(l))+2 {
				flush()
				if lines[i+1][0] == '=' && !isConfig {
					i++
					continue // the page title
				}
				section = strings.TrimSpace(l)
				i++
				continue
			}
			if strings.HasPrefix(l, "== ") || strings.HasPrefix(l, "=== ") {
				flush()
				section = strings.TrimSpace(strings.TrimLeft(l, "= "))
				continue
			}
			if (listy[strings.ToUpper(section)] || isConfig) && termLine.MatchString(l) {
				// A run of term lines starts one entry.
				flush()
				var terms []string
				for ; i < len(lines) && termLine.MatchString(lines[i]); i++ {
					terms = append(terms, strings.Trim(strings.TrimSuffix(strings.TrimSpace(lines[i]), "::"), "`"))
				}
				i--
				term = strings.Join(terms, ", ")
				if len(term) > 80 {
					term = term[:80]
				}
				continue
			}
			body = append(body, l)
		}
		flush()
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	out, err := os.Create(outFile)
	if err != nil {
		panic(err)
	}
	zw := gzip.NewWriter(out)
	w := bufio.NewWriter(zw)
	enc := json.NewEncoder(w)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			panic(err)
		}
	}
	w.Flush()
	zw.Close()
	out.Close()
	fmt.Fprintf(os.Stderr, "%d notes\n", len(docs))
}
