package main

//go:generate go run . -in testdata/mailer.yaml -var mailerManifest -o mailer_gen_test.go
//go:generate go run . -in testdata/notes.yaml -var notesManifest -o notes_gen_test.go

import (
	"os"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/sdk"
)

// TestGeneratedManifestsRoundTrip: the Go written for a manifest with every
// field kind (agent with uses and secrets, enums of strings and integers,
// defaults of every type, bounds, items, prompts, resources, output
// schemas) builds the manifest that parsing the YAML gives, and the
// generator still writes those files as committed.
func TestGeneratedManifestsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		yaml, name, file string
		built            *sdk.PrebuiltManifest
	}{
		{"testdata/mailer.yaml", "mailerManifest", "mailer_gen_test.go", mailerManifest},
		{"testdata/notes.yaml", "notesManifest", "notes_gen_test.go", notesManifest},
	} {
		t.Run(tc.yaml, func(t *testing.T) {
			if err := sdk.CheckPrebuiltManifest(tc.built, tc.yaml); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(tc.yaml)
			if err != nil {
				t.Fatal(err)
			}
			src, err := Generate("main", tc.name, tc.yaml, data)
			if err != nil {
				t.Fatal(err)
			}
			committed, err := os.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if string(src) != string(committed) {
				t.Errorf("Generate(%s) differs from %s: run go generate ./sdk/manifestgen", tc.yaml, tc.file)
			}
		})
	}
}

func TestGenerateRefusesAnInvalidManifest(t *testing.T) {
	_, err := Generate("main", "m", "tool.yaml", []byte("name: x\nactions: 3\n"))
	if err == nil || !strings.Contains(err.Error(), "tool.yaml") {
		t.Fatalf("Generate of a broken manifest: %v, want the parse error naming the file", err)
	}
}
