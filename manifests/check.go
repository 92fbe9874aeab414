package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ArgError is what Check returns when a call's args do not fit the action:
// the message names every problem at once, DidYouMean holds the arg names
// (or enum values) the caller probably meant, and Schema, set when an arg is
// unknown or missing, describes every valid arg (see Action.ArgsSummary).
// The three fields map onto the error envelope's message, did_you_mean and
// schema.
type ArgError struct {
	Message    string
	DidYouMean []string
	Schema     map[string]any
}

// Error returns the message, followed by the suggestions when there are
// any.
func (e *ArgError) Error() string {
	if len(e.DidYouMean) == 0 {
		return e.Message
	}
	q := make([]string, len(e.DidYouMean))
	for i, s := range e.DidYouMean {
		q[i] = "'" + s + "'"
	}
	return e.Message + " (did you mean " + strings.Join(q, " or ") + "?)"
}

// Check validates a call's args against the action and returns them with
// defaults filled in for the optional args that were not given.
//
// args must be a JSON object of arg name to value; empty input and null mean
// {}. An arg whose value is null counts as not given. Every problem is
// reported at once in one *ArgError: unknown args (with DidYouMean and
// Schema), missing required args (with Schema), values of the wrong type
// (naming the expected type and what was given), values outside minimum or
// maximum, and values not in the enum (with DidYouMean among the enum's
// values when they are strings). Names are never normalised: "max_results"
// is unknown even when "max-results" exists.
//
// Values come back as: string; int64 for integer args; float64 for number
// args; bool; []any for arrays; map[string]any for objects. Numbers inside
// arrays and objects stay json.Number, exactly as the caller wrote them. An
// integer arg accepts any JSON number whose value is a whole number, as JSON
// Schema does: 3, 3.0 and 3e0 are all int64 3; 3.5 is an error, and so is a
// whole number outside int64's range.
func (a *Action) Check(args json.RawMessage) (map[string]any, error) {
	obj, err := decodeArgs(args)
	if err != nil {
		return nil, err
	}
	var msgs, dym []string
	needSchema := false
	// Unknown names are rare: find them without a per-call index of the
	// args, and sort and suggest only when there are some.
	var unknown []string
	for k := range obj {
		if !a.hasArg(k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		names := a.ArgNames()
		for _, k := range unknown {
			msgs = append(msgs, "unknown arg '"+k+"'")
			dym = append(dym, Suggest(k, names)...)
		}
		needSchema = true
	}

	out := make(map[string]any, len(a.Args))
	for i := range a.Args {
		arg := &a.Args[i]
		v, given := obj[arg.Name]
		if !given || v == nil {
			if arg.Required {
				msgs = append(msgs, "missing required arg '"+arg.Name+"' ("+arg.TypeName()+")")
				needSchema = true
			} else if arg.Default != nil {
				out[arg.Name] = cloneValue(arg.Default)
			}
			continue
		}
		val, msg := arg.convert(v)
		if msg == "" {
			msg = arg.checkRange(val)
		}
		if msg == "" && len(arg.Enum) > 0 && !arg.inEnum(val) {
			msg = describeValue(val) + " is not one of " + arg.enumList()
			if s, ok := val.(string); ok {
				dym = append(dym, Suggest(s, arg.enumStrings())...)
			}
		}
		if msg != "" {
			msgs = append(msgs, "arg '"+arg.Name+"': "+msg)
			continue
		}
		out[arg.Name] = val
	}
	if len(msgs) == 0 {
		return out, nil
	}
	e := &ArgError{Message: strings.Join(msgs, "; "), DidYouMean: dedupe(dym)}
	if needSchema {
		e.Schema = a.ArgsSummary()
	}
	return nil, e
}

// decodeArgs turns the raw args into a JSON object, keeping numbers as
// json.Number.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, nil
	}
	if obj, ok := decodeFlat(raw); ok {
		return obj, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &ArgError{Message: "args are not valid JSON: " + err.Error()}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &ArgError{Message: "args are not valid JSON: unexpected data after the object"}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &ArgError{Message: "args must be a JSON object of arg name to value, got " + describeValue(v)}
	}
	return obj, nil
}

// hasArg reports whether the action has an arg named name.
func (a *Action) hasArg(name string) bool {
	for i := range a.Args {
		if a.Args[i].Name == name {
			return true
		}
	}
	return false
}

// decodeFlat decodes the common case of a call's args — one valid JSON
// object whose values are numbers, true, false, null or strings without
// escapes, its names without escapes, all valid UTF-8 — the way decodeArgs's
// decoder would (numbers as json.Number, the last of a repeated name wins),
// without a json.Decoder, its read buffer or reflection per call. It
// reports false for anything else, and decodeArgs's decoder decodes it or
// names the problem.
func decodeFlat(raw []byte) (map[string]any, bool) {
	if raw[0] != '{' || !utf8.Valid(raw) || !json.Valid(raw) {
		return nil, false
	}
	obj := map[string]any{}
	i := skipSpace(raw, 1)
	if raw[i] == '}' {
		return obj, true
	}
	for {
		key, next, ok := plainString(raw, i)
		if !ok {
			return nil, false
		}
		i = skipSpace(raw, skipSpace(raw, next)+1) // past ':'
		var v any
		switch c := raw[i]; {
		case c == '"':
			s, end, ok := plainString(raw, i)
			if !ok {
				return nil, false
			}
			v, next = s, end
		case c == 't':
			v, next = true, i+4
		case c == 'f':
			v, next = false, i+5
		case c == 'n':
			v, next = nil, i+4
		case c == '-' || c >= '0' && c <= '9':
			next = i + 1
			for next < len(raw) && strings.IndexByte("0123456789.eE+-", raw[next]) >= 0 {
				next++
			}
			v = json.Number(raw[i:next])
		default: // an array or an object
			return nil, false
		}
		obj[key] = v
		i = skipSpace(raw, next)
		if raw[i] == '}' {
			return obj, true
		}
		i = skipSpace(raw, i+1) // past ','
	}
}

// plainString returns the JSON string starting at raw[i] (a '"') and the
// index past its closing quote, or false when it has an escape. raw is
// valid JSON.
func plainString(raw []byte, i int) (string, int, bool) {
	if raw[i] != '"' {
		return "", 0, false
	}
	end := bytes.IndexByte(raw[i+1:], '"')
	if end < 0 {
		return "", 0, false
	}
	s := raw[i+1 : i+1+end]
	if bytes.IndexByte(s, '\\') >= 0 {
		return "", 0, false
	}
	return string(s), i + end + 2, true
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// ArgsSummary describes every arg of the action in the compact form an
// error's schema carries: arg name → its Schema with "required".
func (a *Action) ArgsSummary() map[string]any {
	s := make(map[string]any, len(a.Args))
	for i := range a.Args {
		e := a.Args[i].Schema()
		e["required"] = a.Args[i].Required
		s[a.Args[i].Name] = e
	}
	return s
}

// convert checks v against the arg's type and returns it in the type's Go
// representation, or a message saying what was wanted and what was given.
func (a *Arg) convert(v any) (any, string) {
	switch a.Type {
	case TypeString:
		if s, ok := v.(string); ok {
			return s, ""
		}
	case TypeInteger:
		if n, ok := toNumber(v); ok {
			i, msg := parseInteger(n)
			if msg != "" {
				return nil, msg
			}
			return i, ""
		}
	case TypeNumber:
		if n, ok := toNumber(v); ok {
			f, err := strconv.ParseFloat(string(n), 64)
			if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, "number " + string(n) + " is out of range"
			}
			return f, ""
		}
	case TypeBoolean:
		if b, ok := v.(bool); ok {
			return b, ""
		}
	case TypeArray:
		if l, ok := v.([]any); ok {
			if msg := checkItems(a.Items, l); msg != "" {
				return nil, msg
			}
			return l, ""
		}
	case TypeObject:
		if m, ok := v.(map[string]any); ok {
			return m, ""
		}
	default:
		return v, ""
	}
	return nil, "want " + string(a.Type) + ", got " + describeValue(v)
}

// toNumber returns v as a json.Number when it is any kind of number.
func toNumber(v any) (json.Number, bool) {
	switch n := v.(type) {
	case json.Number:
		return n, true
	case int64:
		return json.Number(strconv.FormatInt(n, 10)), true
	case int:
		return json.Number(strconv.Itoa(n)), true
	case float64:
		if math.IsInf(n, 0) || math.IsNaN(n) {
			return "", false
		}
		return json.Number(strconv.FormatFloat(n, 'g', -1, 64)), true
	}
	return "", false
}

// parseInteger returns the whole number n denotes, or a message when n has
// a fraction or does not fit in an int64. It is exact: 9007199254740993.0 is
// 9007199254740993, and 3.0000000000000000001 is not a whole number.
func parseInteger(n json.Number) (int64, string) {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, ""
	}
	mant, exp := s, 0
	if k := strings.IndexAny(s, "eE"); k >= 0 {
		mant = s[:k]
		e, err := strconv.Atoi(s[k+1:])
		if err != nil || e > 1000 || e < -1000 {
			if strings.Trim(mant, "+-0.") == "" {
				return 0, ""
			}
			if e < 0 {
				return 0, "want integer, got number " + s
			}
			return 0, "integer " + s + " is out of range"
		}
		exp = e
	}
	r, ok := new(big.Rat).SetString(mant)
	if !ok {
		return 0, "want integer, got " + s
	}
	if exp != 0 {
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
		if exp > 0 {
			r.Mul(r, new(big.Rat).SetInt(p))
		} else {
			r.Quo(r, new(big.Rat).SetInt(p))
		}
	}
	if !r.IsInt() {
		return 0, "want integer, got number " + s
	}
	if !r.Num().IsInt64() {
		return 0, "integer " + s + " is out of range"
	}
	return r.Num().Int64(), ""
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// jsonTypes are the JSON Schema type names an items schema may use.
var jsonTypes = []string{"string", "integer", "number", "boolean", "array", "object", "null"}

// checkItems checks an array's elements against items["type"], when the
// items schema names one simple type.
func checkItems(items map[string]any, l []any) string {
	t, _ := items["type"].(string)
	if t == "" {
		return ""
	}
	for i, v := range l {
		if !isJSONType(t, v) {
			return fmt.Sprintf("item %d: want %s, got %s", i, t, describeValue(v))
		}
	}
	return ""
}

// isJSONType reports whether v, decoded from JSON with UseNumber, is of the
// JSON Schema type t. Unknown type names accept anything.
func isJSONType(t string, v any) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		n, ok := toNumber(v)
		if !ok {
			return false
		}
		_, msg := parseInteger(n)
		return msg == ""
	case "number":
		_, ok := toNumber(v)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "null":
		return v == nil
	}
	return true
}

// checkRange returns a message when v, an int64 or float64, is outside the
// arg's minimum or maximum.
func (a *Arg) checkRange(v any) string {
	var f float64
	var text string
	switch n := v.(type) {
	case int64:
		f, text = float64(n), strconv.FormatInt(n, 10)
	case float64:
		f, text = n, strconv.FormatFloat(n, 'g', -1, 64)
	default:
		return ""
	}
	if a.Minimum != nil && f < *a.Minimum {
		return text + " is below the minimum " + formatFloat(*a.Minimum)
	}
	if a.Maximum != nil && f > *a.Maximum {
		return text + " is above the maximum " + formatFloat(*a.Maximum)
	}
	return ""
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// inEnum reports whether v equals one of the enum's values.
func (a *Arg) inEnum(v any) bool {
	for _, e := range a.Enum {
		if sameValue(e, v) {
			return true
		}
	}
	return false
}

// sameValue compares two scalar values, numbers by value.
func sameValue(a, b any) bool {
	na, aNum := toNumber(a)
	nb, bNum := toNumber(b)
	if aNum && bNum {
		ia, errA := strconv.ParseInt(string(na), 10, 64)
		ib, errB := strconv.ParseInt(string(nb), 10, 64)
		if errA == nil && errB == nil {
			return ia == ib
		}
		fa, errA := strconv.ParseFloat(string(na), 64)
		fb, errB := strconv.ParseFloat(string(nb), 64)
		return errA == nil && errB == nil && fa == fb
	}
	if aNum || bNum {
		return false
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}

// enumList renders the enum's values for a message: "a", "b" or 1, 2.
func (a *Arg) enumList() string {
	parts := make([]string, len(a.Enum))
	for i, e := range a.Enum {
		if s, ok := e.(string); ok {
			parts[i] = strconv.Quote(s)
		} else {
			b, _ := json.Marshal(e)
			parts[i] = string(b)
		}
	}
	return strings.Join(parts, ", ")
}

// enumStrings returns the enum's string values.
func (a *Arg) enumStrings() []string {
	var out []string
	for _, e := range a.Enum {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// describeValue names a decoded JSON value's type and, for scalars, its
// value: `string "abc"`, `number 3.5`, `boolean true`, `array`, `null`.
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if utf8.RuneCountInString(x) > 40 {
			x = string([]rune(x)[:40]) + "…"
		}
		return "string " + strconv.Quote(x)
	case json.Number:
		return "number " + string(x)
	case int64, int, float64:
		n, _ := toNumber(x)
		return "number " + string(n)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// cloneValue deep-copies the arrays and objects of a decoded value so a
// caller cannot change a manifest's defaults through a returned value.
func cloneValue(v any) any {
	switch x := v.(type) {
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneValue(e)
		}
		return c
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = cloneValue(e)
		}
		return c
	}
	return v
}

func dedupe(l []string) []string {
	if len(l) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// FromString converts a command-line value (host call --arg NAME=VALUE, or a
// plugin's own --NAME VALUE) to the arg's type: string as is; integer as a
// whole number (int64); number as float64; boolean from true/false, 1/0 or
// yes/no in any case; array and object as JSON. An array whose items are
// strings (or unspecified) may also be a comma-separated list: "a, b,c" is
// ["a", "b", "c"] and "" is []. Range and enum are not checked here; Check
// does that on the assembled args.
func (a *Arg) FromString(s string) (any, error) {
	switch a.Type {
	case TypeString, "":
		return s, nil
	case TypeInteger:
		t := strings.TrimSpace(s)
		if !isJSONNumber(t) {
			return nil, fmt.Errorf("arg %s: want integer, got %q", a.Name, s)
		}
		i, msg := parseInteger(json.Number(t))
		if msg != "" {
			return nil, fmt.Errorf("arg %s: %s", a.Name, msg)
		}
		return i, nil
	case TypeNumber:
		t := strings.TrimSpace(s)
		if !isJSONNumber(t) {
			return nil, fmt.Errorf("arg %s: want number, got %q", a.Name, s)
		}
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("arg %s: number %s is out of range", a.Name, t)
		}
		return f, nil
	case TypeBoolean:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "1", "yes":
			return true, nil
		case "false", "0", "no":
			return false, nil
		}
		return nil, fmt.Errorf("arg %s: want boolean (true/false, 1/0, yes/no), got %q", a.Name, s)
	case TypeArray:
		t := strings.TrimSpace(s)
		if strings.HasPrefix(t, "[") {
			v, err := decodeJSONValue(t)
			if err != nil {
				return nil, fmt.Errorf("arg %s: want a JSON array: %v", a.Name, err)
			}
			l, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("arg %s: want a JSON array, got %s", a.Name, describeValue(v))
			}
			return l, nil
		}
		if it, _ := a.Items["type"].(string); it != "" && it != "string" {
			return nil, fmt.Errorf("arg %s: want a JSON array of %s, got %q", a.Name, it, s)
		}
		l := []any{}
		if t == "" {
			return l, nil
		}
		for _, p := range strings.Split(s, ",") {
			l = append(l, strings.TrimSpace(p))
		}
		return l, nil
	case TypeObject:
		v, err := decodeJSONValue(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("arg %s: want a JSON object: %v", a.Name, err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("arg %s: want a JSON object, got %s", a.Name, describeValue(v))
		}
		return m, nil
	}
	return nil, fmt.Errorf("arg %s: unknown type %q", a.Name, a.Type)
}

// isJSONNumber reports whether s is a number in JSON's syntax.
func isJSONNumber(s string) bool {
	if s == "" {
		return false
	}
	v, err := decodeJSONValue(s)
	if err != nil {
		return false
	}
	_, ok := v.(json.Number)
	return ok
}

// decodeJSONValue decodes exactly one JSON value with UseNumber.
func decodeJSONValue(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the value")
	}
	return v, nil
}
