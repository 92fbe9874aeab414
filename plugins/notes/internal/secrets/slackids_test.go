package secrets

import "testing"

// TestSlackIDsMayCountUp: a real token whose numeric team id counts up
// (2345) is still a secret; a typed placeholder is not.
func TestSlackIDsMayCountUp(t *testing.T) {
	v := "The deploy needs this: xoxb-512345678901-Qw3rTy8uIoPaSdFgHjKlZx9c"
	if got := Scan(v); len(got) == 0 {
		t.Fatalf("a Slack bot token whose team id holds 2345 was not found")
	}
	if got := Scan("xoxb-1234-abcdefgh"); len(got) != 0 {
		t.Fatalf("placeholder flagged: %v", got)
	}
}
