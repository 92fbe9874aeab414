package manifests

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Marshal encodes a manifest ParseBytes returned without error as JSON that,
// decoded with numbers as json.Number and finished by Restore, gives back
// an equal *Manifest: the form the host keeps parsed manifests in between
// runs (registry's manifest cache, the one decoder), so a start reads a
// manifest it has parsed before without parsing its YAML again. It is not a
// tool.yaml. A cache should still compare what it decodes with m before
// keeping it.
func Marshal(m *Manifest) ([]byte, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("manifests: marshal %s: %w", m.Path, err)
	}
	return data, nil
}

// Restore finishes a manifest decoded from Marshal's JSON with numbers as
// json.Number: it sets
// its Path, and converts each enum value and default to its arg's type, as
// Check would, so the manifest equals the one ParseBytes gave. Free-form
// values (schemas, array and object defaults) are already in the form
// ParseBytes gives them.
func Restore(path string, m *Manifest) error {
	m.Path = path
	for i := range m.Actions {
		for j := range m.Actions[i].Args {
			if err := m.Actions[i].Args[j].typed(); err != nil {
				return fmt.Errorf("manifests: unmarshal %s: actions[%d].args[%d]: %w", path, i, j, err)
			}
		}
	}
	return nil
}

// typed converts a decoded arg's enum values and default to its type.
func (a *Arg) typed() error {
	for k, v := range a.Enum {
		c, msg := a.convert(v)
		if msg != "" {
			return fmt.Errorf("enum[%d]: %s", k, msg)
		}
		a.Enum[k] = c
	}
	if a.Default == nil {
		return nil
	}
	c, msg := a.convert(a.Default)
	if msg != "" {
		return errors.New("default: " + msg)
	}
	a.Default = c
	return nil
}
