package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	sjson "github.com/segmentio/encoding/json"
)

// Marshal encodes a manifest ParseBytes returned without error as JSON that
// Unmarshal turns back into an equal *Manifest: the form the host keeps
// parsed manifests in between runs, so a start reads a manifest it has
// parsed before without parsing its YAML again. It is not a tool.yaml.
//
// Marshal refuses a manifest that would not come back equal (checked by
// decoding it), so a cache can only ever hand out what the parser gave.
func Marshal(m *Manifest) ([]byte, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("manifests: marshal %s: %w", m.Path, err)
	}
	back, err := Unmarshal(m.Path, data)
	if err != nil {
		return nil, fmt.Errorf("manifests: marshal %s: %w", m.Path, err)
	}
	if !reflect.DeepEqual(back, m) {
		return nil, fmt.Errorf("manifests: marshal %s: the encoded manifest does not decode to the same one", m.Path)
	}
	return data, nil
}

// unmarshalFlags decode as encoding/json with UseNumber and
// DisallowUnknownFields would, field names matched exactly as Marshal
// writes them. segmentio's decoder (the MCP transport's) took a seventh of
// encoding/json's time on notes' manifest (182 µs against 1,251 µs, same
// run; parsing its YAML took 2,721 µs), and a start decodes every cached
// manifest.
const unmarshalFlags = sjson.UseNumber | sjson.DisallowUnknownFields | sjson.DontMatchCaseInsensitiveStructFields

// Unmarshal decodes what Marshal wrote as the manifest at path. Free-form
// values (schemas, defaults) come back as ParseBytes gives them (numbers
// as json.Number), and each enum value and default in its arg's type, as
// Check would convert it.
func Unmarshal(path string, data []byte) (*Manifest, error) {
	var m Manifest
	rest, err := sjson.Parse(data, &m, unmarshalFlags)
	if err != nil {
		return nil, fmt.Errorf("manifests: unmarshal %s: %w", path, err)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("manifests: unmarshal %s: data after the manifest", path)
	}
	m.Path = path
	for i := range m.Actions {
		for j := range m.Actions[i].Args {
			if err := m.Actions[i].Args[j].typed(); err != nil {
				return nil, fmt.Errorf("manifests: unmarshal %s: actions[%d].args[%d]: %w", path, i, j, err)
			}
		}
	}
	return &m, nil
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
