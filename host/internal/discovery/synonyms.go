package discovery

import "slices"

// qterm is one search term: a stem and how much a match on it counts
// (1 for a word of the query, less for a synonym of one).
type qterm struct {
	stem   string
	weight float64
	// of is the query word the term stands for (its index).
	of int
}

// synonymWeight is what a match on a synonym of a query word counts.
const synonymWeight = 0.8

// abbreviations are short forms people type for words tool descriptions
// spell out; a query word here is searched as its long form, in full.
var abbreviations = map[string][]string{
	"pr": {"pull", "request"}, "prs": {"pull", "request"}, "repo": {"repository"}, "repos": {"repository"},
	"dir": {"directory"}, "org": {"organization"}, "orgs": {"organization"}, "db": {"database"},
	"env": {"environment"}, "msg": {"message"}, "info": {"information"}, "docs": {"documentation"},
	"config": {"configuration"}, "ci": {"workflow"}, "sql": {"query"}, "url": {"url", "link"},
	"ls": {"list", "directory"}, "mkdir": {"create", "directory"}, "rm": {"delete"}, "mv": {"move"},
	"cat": {"read", "file"}, "png": {"image"}, "jpg": {"image"}, "jpeg": {"image"}, "gif": {"image"},
	"mp3": {"audio"}, "wav": {"audio"}, "js": {"javascript"}, "ui": {"interface"},
}

// synonymGroups are words of one meaning in the vocabulary of tasks and
// tools: a query word of a group also finds the group's other words, at
// synonymWeight. They are general words of the trade, not any one tool's.
var synonymGroups = [][]string{
	{"delete", "remove", "erase", "discard", "rid", "unlink", "forget"},
	{"create", "make", "new", "add"},
	{"edit", "change", "modify", "update", "alter"},
	{"show", "display", "view", "list"},
	{"find", "search", "look", "locate", "lookup"},
	{"get", "fetch", "retrieve", "download", "grab"},
	{"rename", "move"},
	{"folder", "directory"},
	{"picture", "image", "photo", "screenshot"},
	{"compare", "diff", "difference"},
	{"undo", "revert", "rollback"},
	{"save", "store", "remember", "record"},
	{"cost", "spend", "money", "bill", "price", "expense"},
	{"spreadsheet", "workbook", "excel"},
	{"user", "person", "people", "member", "account"},
	{"close", "quit", "exit"},
	{"run", "execute", "trigger"},
	{"web", "internet", "online", "website"},
	{"summary", "summarize", "brief"},
	{"inbox", "notification"},
	{"access", "permission", "collaborator"},
	{"place", "restaurant", "business", "shop"},
	{"height", "high", "altitude", "elevation"},
	{"http", "network", "request"},
	{"send", "post"},
	{"reply", "respond", "answer"},
	{"clear", "dismiss"},
	{"warning", "alert"},
	{"open", "launch"},
	{"team", "workspace", "organization"},
	{"table", "database", "sql"},
	{"coordinates", "latitude", "longitude", "geocode"},
	{"copy", "duplicate", "fork", "clone"},
	{"plus", "sum", "total"},
	{"bug", "issue"},
	{"password", "secret", "credential"},
	{"fact", "observation"},
	{"relationship", "relation", "connection", "connect"},
	{"type", "enter", "input"},
	{"popup", "dialog", "modal"},
	{"mouse", "cursor", "hover", "pointer"},
	{"visit", "navigate"},
	{"switch", "checkout"},
	{"history", "log"},
	{"stage", "staging", "index"},
	{"unstage", "reset"},
	{"webpage", "web", "website"},
}

// synonyms maps a stem to the other stems of its groups.
var synonyms = func() map[string][]string {
	out := map[string][]string{}
	for _, g := range synonymGroups {
		stems := make([]string, len(g))
		for i, w := range g {
			stems[i] = stem(w)
		}
		for _, a := range stems {
			for _, b := range stems {
				if a != b && !slices.Contains(out[a], b) {
					out[a] = append(out[a], b)
				}
			}
		}
	}
	return out
}()

// expand adds each term's synonyms, at synonymWeight, unless the query has
// them already.
func expand(terms []qterm) []qterm {
	have := map[string]bool{}
	for _, t := range terms {
		have[t.stem] = true
	}
	out := terms
	for _, t := range terms {
		for _, s := range synonyms[t.stem] {
			if !have[s] {
				have[s] = true
				out = append(out, qterm{stem: s, weight: t.weight * synonymWeight, of: t.of})
			}
		}
	}
	return out
}
