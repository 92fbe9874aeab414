package clientconfig

import (
	"testing"
)

// TestRemoveAtTakesOutOneNestedEntry: a project's server entry leaves its
// object, the other members, comments and formatting stay.
func TestRemoveAtTakesOutOneNestedEntry(t *testing.T) {
	doc := `{
  "projects": {
    "/home/ana/app": {
      // keep me
      "allowedTools": [],
      "mcpServers": {
        "memory": {"command": "npx"},
        "other": {"command": "uvx"}
      }
    }
  }
}
`
	tests := []struct {
		name, remove, want string
		changed            bool
	}{
		{"first of two", "memory", `{
  "projects": {
    "/home/ana/app": {
      // keep me
      "allowedTools": [],
      "mcpServers": {
        "other": {"command": "uvx"}
      }
    }
  }
}
`, true},
		{"last of two", "other", `{
  "projects": {
    "/home/ana/app": {
      // keep me
      "allowedTools": [],
      "mcpServers": {
        "memory": {"command": "npx"}
      }
    }
  }
}
`, true},
		{"absent", "nope", doc, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed, err := RemoveAt([]byte(doc), []string{"projects", "/home/ana/app", "mcpServers"}, tt.remove)
			if err != nil || changed != tt.changed || string(got) != tt.want {
				t.Fatalf("got changed %v, %v:\n%s\nwant:\n%s", changed, err, got, tt.want)
			}
		})
	}
	once, _, _ := RemoveAt([]byte(doc), []string{"projects", "/home/ana/app", "mcpServers"}, "memory")
	both, _, err := RemoveAt(once, []string{"projects", "/home/ana/app", "mcpServers"}, "other")
	if err != nil {
		t.Fatal(err)
	}
	servers, names, err := Servers(both, "projects", "/home/ana/app", "mcpServers")
	if err != nil || len(servers) != 0 || len(names) != 0 {
		t.Fatalf("after both removals: %v %v %v\n%s", servers, names, err, both)
	}
	if _, err := Standard(both); err != nil {
		t.Fatalf("not JSON after both removals: %v\n%s", err, both)
	}
}
