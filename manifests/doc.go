// Package manifests defines the tool.yaml format: its Go types, parsing with
// line numbers, validation, the JSON Schema of each action's args, the JSON
// Schema of tool.yaml itself, the argument checker with did-you-mean
// suggestions, and the naming rule of the safety gate.
//
// # Parsing
//
// Parse and ParseBytes read a manifest through yaml.v3 nodes, so every
// problem names the file, the line and the field:
//
//	plugins/x/tool.yaml:12: actions[1].args[0].type: unknown type "strng" (want string, integer, number, boolean, array, object)
//
// All problems are reported at once, as an *Error holding a list of
// Problem. Unknown keys are errors with a did-you-mean. Defaults: kind
// tool, timeout 30s, concurrency 4, eager false, secrets not required.
//
// # Reversible and read_only
//
// read_only: true means an action changes nothing; it implies reversible,
// so read_only: true with reversible: false is an error. When reversible is
// absent it takes the value of read_only: an action that may change
// something and does not say the change can be undone is treated as
// irreversible, and the plain run_tool asks for approval. The gate fails
// closed: an author opts an action into running unattended by writing
// read_only: true or reversible: true.
//
// The gate's naming rule (IrreversibleWord) is enforced here as well: an
// action whose tool or action name holds an irreversible verb ("send",
// "delete-messages", "issue-invoice") cannot be declared read_only or
// reversible, so after a successful parse Reversible is false for every such
// action and the gate may rely on the flag and the name agreeing.
//
// # Names
//
// Tool, action, arg and secret names are lowercase kebab-case
// ("read-sheet", "max-results"). They are returned verbatim and never
// normalised: a caller's "max_results" is an unknown arg with a
// did-you-mean pointing at "max-results" (see Suggest), never a silent
// mapping.
//
// # Values
//
// Action.Check and Arg.FromString return values in one representation:
// string, int64 for integer args, float64 for number args, bool, []any for
// arrays and map[string]any for objects. Numbers nested inside arrays and
// objects are json.Number, exactly as written; so are numbers inside the
// free-form parts of a manifest (items, output_schema, array and object
// defaults). Integer args accept any whole number in JSON's syntax, as JSON
// Schema does: 3, 3.0 and 3e0 are int64 3, while 3.5 and numbers beyond
// int64 are errors. Arg.Enum and Arg.Default hold values of the same
// representation.
package manifests
