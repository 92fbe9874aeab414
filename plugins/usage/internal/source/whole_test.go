package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestWholeFileJustCreated: Gemini's chat .json and OpenCode's older JSON
// storage are read as one document; one that is created but not yet
// written (empty, or white space) counts nothing, is not malformed, and is
// not read again until it changes. A real document beside it is read.
func TestWholeFileJustCreated(t *testing.T) {
	tests := []struct {
		name     string
		provider Provider
		file     string
		content  string
		lines    int64
	}{
		{"gemini empty", Gemini{}, "session-1.json", "", 0},
		{"gemini blank", Gemini{}, "session-1.json", "\n  \n", 0},
		{"opencode empty", OpenCode{}, "msg_1.json", "", 0},
		{"opencode blank", OpenCode{}, "msg_1.json", " \n", 0},
		{"gemini written", Gemini{}, "session-1.json", `{"sessionId":"s","messages":[]}`, 0},
		{"opencode written", OpenCode{}, "msg_1.json", `{"id":"msg_1","sessionID":"s","role":"user"}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			st := &FileState{ID: 1, Source: Source{Path: path}}
			if err := tt.provider.Parse(context.Background(), st); err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if st.Skipped != 0 || st.Lines != tt.lines || st.Offset != int64(len(tt.content)) || st.BytesRead != int64(len(tt.content)) {
				t.Errorf("skipped %d lines %d offset %d read %d; want 0, %d, %d, %d",
					st.Skipped, st.Lines, st.Offset, st.BytesRead, tt.lines, len(tt.content), len(tt.content))
			}
		})
	}
}
