package secrets

import (
	"strings"
	"testing"
)

// TestScanFoldsInvisibleSeparators: a token with zero-width spaces or a
// BOM between its characters is found.
func TestScanFoldsInvisibleSeparators(t *testing.T) {
	tok := "gh" + "p_" + "Kq8ZrT2mVw9XbN4cLp7YdF3sHj6GtR1aUe5Q"
	for _, sep := range []string{"\u200b", "\ufeff", "\u00ad", "\u2060"} {
		text := "token " + strings.Join(strings.Split(tok, ""), sep)
		if got := Scan(text); len(got) == 0 {
			t.Errorf("separator %U: not flagged", []rune(sep)[0])
		}
	}
}
