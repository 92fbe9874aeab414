package source

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Copilot CLI's OpenTelemetry file export (COPILOT_OTEL_EXPORTER_TYPE=file)
// writes one finished span a line, as OpenTelemetry's JavaScript SDK
// serialises it: {traceId, spanId, parentSpanId, name, startTime, endTime,
// attributes, …}, times as [seconds, nanoseconds]. Each agent turn is an
// invoke_agent span (the turn's totals) over a chat span per model request
// (gen_ai.operation.name "chat", the GenAI semantic conventions' attributes:
// gen_ai.response.model, gen_ai.usage.input_tokens, which includes the
// cached prompt, gen_ai.usage.output_tokens, gen_ai.usage.cache_read.
// input_tokens and gen_ai.usage.cache_creation.input_tokens or cache_write).
// The span tree is the one GitHub's and VS Code's Copilot monitoring guides
// describe; the places and which spans count are ccusage 20.0.24's.

// discoverCopilotOTel adds the export's files: the file
// COPILOT_OTEL_FILE_EXPORTER_PATH names and every *.jsonl at any depth under
// home/otel. A source without a session is an export file to Parse.
func discoverCopilotOTel(env Env, home string, dsc *Discovery) {
	if p := env("COPILOT_OTEL_FILE_EXPORTER_PATH"); p != "" {
		dsc.LookedIn = append(dsc.LookedIn, p)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			dsc.Found = true
			dsc.Sources = append(dsc.Sources, Source{Path: p})
		} else if err == nil {
			dsc.Problems = append(dsc.Problems, fmt.Errorf(
				"COPILOT_OTEL_FILE_EXPORTER_PATH (%s) is not a file: set it to the file Copilot CLI's OpenTelemetry export writes", p))
		}
	}
	list := walkOptions{Problem: func(_, _ string, err error) error {
		return fmt.Errorf("list Copilot's OpenTelemetry folder: %w", err)
	}}
	walkRoots(dsc, []string{filepath.Join(home, "otel")}, list, func(_, p string, d fs.DirEntry) {
		if strings.HasSuffix(d.Name(), ".jsonl") && d.Type().IsRegular() {
			dsc.Sources = append(dsc.Sources, Source{Path: p})
		}
	})
}

// otelSpan is the part of an exported span this reader uses.
type otelSpan struct {
	TraceID    string    `json:"traceId"`
	SpanID     string    `json:"spanId"`
	StartTime  []float64 `json:"startTime"`
	EndTime    []float64 `json:"endTime"`
	Attributes struct {
		Operation     string     `json:"gen_ai.operation.name"`
		ResponseModel string     `json:"gen_ai.response.model"`
		RequestModel  string     `json:"gen_ai.request.model"`
		Conversation  string     `json:"gen_ai.conversation.id"`
		Session       string     `json:"session.id"`
		Input         lenientInt `json:"gen_ai.usage.input_tokens"`
		Output        lenientInt `json:"gen_ai.usage.output_tokens"`
		CacheRead     lenientInt `json:"gen_ai.usage.cache_read.input_tokens"`
		CacheCreate   lenientInt `json:"gen_ai.usage.cache_creation.input_tokens"`
		CacheWrite    lenientInt `json:"gen_ai.usage.cache_write.input_tokens"`
	} `json:"attributes"`
}

// hrMillis converts an OpenTelemetry [seconds, nanoseconds] time to Unix
// milliseconds.
func hrMillis(t []float64) (int64, bool) {
	if len(t) != 2 || t[0] <= 0 {
		return 0, false
	}
	return int64(t[0])*1000 + int64(t[1])/1e6, true
}

var needleUsageTokens = []byte(`"gen_ai.usage.`)

// parseCopilotOTel reads an export file whole (it is re-read when it
// changes: a turn's invoke_agent span is written after its chat spans).
// Each chat span with usage is a call; an invoke_agent span is one only
// when its trace has no chat span in the file (the turn's requests were not
// exported one by one). Input is gen_ai.usage.input_tokens less the cache
// reads and writes it includes; the time is the span's end (else its
// start); the model is the response's, else the request's, else
// "unknown"; the session is gen_ai.conversation.id, else session.id, else
// the trace. A span written twice counts once.
func parseCopilotOTel(ctx context.Context, st *FileState) error {
	var spans []otelSpan
	chats := map[string]bool{}
	err := readLines(ctx, st, func(line []byte) {
		if !bytes.Contains(line, needleUsageTokens) {
			return
		}
		var s otelSpan
		if err := json.Unmarshal(line, &s); err != nil {
			st.Skipped++
			return
		}
		switch s.Attributes.Operation {
		case "chat":
			chats[s.TraceID] = true
		case "invoke_agent":
		default:
			return
		}
		spans = append(spans, s)
	})
	if err != nil {
		return err
	}
	for _, s := range spans {
		a := s.Attributes
		if a.Operation == "invoke_agent" && chats[s.TraceID] {
			continue
		}
		t, ok := hrMillis(s.EndTime)
		if !ok {
			if t, ok = hrMillis(s.StartTime); !ok {
				st.Skipped++
				continue
			}
		}
		cw := int64(a.CacheCreate)
		if cw == 0 {
			cw = int64(a.CacheWrite)
		}
		cr, out := max(int64(a.CacheRead), 0), max(int64(a.Output), 0)
		cw = max(cw, 0)
		in := max(int64(a.Input)-cr-cw, 0)
		if in == 0 && out == 0 && cr == 0 && cw == 0 {
			continue
		}
		model := a.ResponseModel
		if model == "" {
			model = a.RequestModel
		}
		if model == "" {
			model = "unknown"
		}
		session := a.Conversation
		if session == "" {
			session = a.Session
		}
		if session == "" {
			session = s.TraceID
		}
		st.add(Call{Time: t, Origin: st.origin("copilot", "", "", session, model),
			Key: keyOf([]byte("copilot-otel"), []byte(s.TraceID), []byte(s.SpanID)),
			In:  tok(in), Out: tok(out), CW5m: tok(cw), CR: tok(cr)}, nil)
	}
	return nil
}
