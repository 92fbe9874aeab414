package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Marshal encodes a manifest ParseBytes returned without error as JSON that
// Unmarshal turns back into an equal *Manifest: the form the host keeps
// parsed manifests in between runs, so a start reads a manifest it has
// parsed before without parsing its YAML again. It is not a tool.yaml. A
// cache should still compare what it decodes with m before keeping it.
func Marshal(m *Manifest) ([]byte, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("manifests: marshal %s: %w", m.Path, err)
	}
	return data, nil
}

// Unmarshal decodes what Marshal wrote as the manifest at path, refusing
// unknown fields (see Restore).
func Unmarshal(path string, data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("manifests: unmarshal %s: %w", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("manifests: unmarshal %s: data after the manifest", path)
	}
	if err := Restore(path, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// Restore finishes a manifest decoded from Marshal's JSON with numbers as
// json.Number (as Unmarshal does; a faster decoder may stand in): it sets
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
