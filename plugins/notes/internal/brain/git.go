package brain

import (
	"context"
	"strings"
	"unicode"
)

// trailers are the provenance lines of every commit.
type trailers struct {
	Op       string
	Action   string
	Session  string
	Client   string
	Request  string
	Approved bool
	Undoes   []string
	// Channel is the host-set channel of the call: terminal or mcp.
	Channel string
}

// commitMessage builds a commit message: the subject and body lines
// folded to one line each (a note's title may be a person's multi-line
// YAML), then a blank line and the trailers, as git interpret-trailers
// --where end --if-exists add --if-missing add writes them after such a
// message (TestCommitMessageMatchesInterpretTrailers holds it to git's
// output; git's %(trailers) reads them back). A trailer value with a line
// break or control character is refused: only the brain's own trailers
// ever reach the trailer block.
func commitMessage(subject string, body []string, t trailers) (string, error) {
	var b strings.Builder
	b.WriteString(oneLine(subject))
	b.WriteString("\n")
	if len(body) > 0 {
		b.WriteString("\n")
		for _, l := range body {
			b.WriteString(oneLine(l))
			b.WriteString("\n")
		}
	}
	var block strings.Builder
	add := func(k, v string) error {
		if v == "" {
			return nil
		}
		if strings.IndexFunc(v, isControlRune) >= 0 || strings.TrimSpace(v) != v {
			return fail(CodeInvalidArgument, "Pass "+trailerArg[k]+" as one line of printable text.",
				"%s %q cannot be recorded in the commit: it has a line break or control character, or spaces at its ends", trailerArg[k], v)
		}
		block.WriteString(k + ": " + v + "\n")
		return nil
	}
	for _, f := range t.text() {
		if f.always || *f.v != "" {
			if err := add(f.key, *f.v); err != nil {
				return "", err
			}
		}
	}
	if t.Approved {
		block.WriteString(trailerApproved + ": user\n")
	}
	for _, u := range t.Undoes {
		if err := add(trailerUndoes, u); err != nil {
			return "", err
		}
	}
	if block.Len() > 0 {
		b.WriteString("\n")
		b.WriteString(block.String())
	}
	return b.String(), nil
}

// trailerArg names, for an error, what a trailer's value came from.
var trailerArg = map[string]string{"Notes-Op": "op", "Notes-Action": "action", "Notes-Session": "session-handle",
	"Notes-Client": "the client's name", "Notes-Request": "the request id", "Notes-Channel": "the channel", trailerUndoes: "op"}

func isControlRune(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

// oneLine folds line breaks and other control characters to spaces.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, isControlRune), " ")
}

// The trailers that are not one string.
const (
	trailerApproved = "Notes-Approved"
	trailerUndoes   = "Notes-Undoes"
)

// trailerField is one string trailer: its key and the field that holds it;
// always says it is written even when empty.
type trailerField struct {
	key    string
	v      *string
	always bool
}

// text lists t's string trailers in the order a commit message gives them,
// for commitMessage to write and parseTrailer to read.
func (t *trailers) text() []trailerField {
	return []trailerField{{"Notes-Op", &t.Op, true}, {"Notes-Action", &t.Action, true}, {"Notes-Session", &t.Session, true},
		{"Notes-Client", &t.Client, true}, {"Notes-Request", &t.Request, false}, {"Notes-Channel", &t.Channel, false}}
}

// parseTrailer sets the field of one commit message line when it is a
// trailer.
func (t *trailers) parseTrailer(line string) {
	k, v, ok := strings.Cut(line, ": ")
	if !ok {
		return
	}
	switch k {
	case trailerApproved:
		t.Approved = true
	case trailerUndoes:
		t.Undoes = append(t.Undoes, v)
	default:
		for _, f := range t.text() {
			if f.key == k {
				*f.v = v
			}
		}
	}
}

// logEntry is one commit with its trailers.
type logEntry struct {
	Commit  string
	Subject string
	Body    string
	Trailer trailers
	Changes []string
}

// log returns commits newest first, with parsed trailers.
func (g gitRunner) log(ctx context.Context, extra ...string) ([]logEntry, error) {
	// Trailers are read by git's own parser (%(trailers)), never from
	// body lines: a line in a body is not a trailer.
	out, err := g.run(ctx, append([]string{"-c", "trailer.separators=:", "log", "--format=%H%x1f%s%x1f%B%x1f%(trailers:only,unfold)%x1e"}, extra...)...)
	if err != nil {
		if strings.Contains(err.Error(), "does not have any commits") {
			return nil, nil
		}
		return nil, err
	}
	var entries []logEntry
	for _, rec := range strings.Split(out, "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		parts := strings.SplitN(rec, "\x1f", 4)
		if len(parts) < 4 {
			continue
		}
		e := logEntry{Commit: parts[0], Subject: parts[1], Body: parts[2]}
		for _, line := range strings.Split(parts[2], "\n") {
			if change, ok := strings.CutPrefix(line, "- "); ok {
				e.Changes = append(e.Changes, change)
			}
		}
		for _, line := range strings.Split(parts[3], "\n") {
			e.Trailer.parseTrailer(line)
		}
		entries = append(entries, e)
	}
	return entries, nil
}
