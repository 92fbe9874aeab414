package testplugin

// Greet is the tool.yaml of greet, a well-behaved plugin for unit tests of
// the SDK and the CLI: say-hello takes each kind of arg (a required string,
// a bounded integer with a default, a boolean, a list), explode is meant to
// panic and refuse to fail with the plugin's own code.
const Greet = `name: greet
description: Greets people.
version: 1.0.0
entrypoint: greet
actions:
  - name: say-hello
    description: Say hello.
    read_only: true
    args:
      - {name: name, type: string, required: true}
      - {name: times, type: integer, minimum: 1, default: 1}
      - {name: loud, type: boolean}
      - {name: tags, type: array, items: {type: string}}
  - name: explode
    description: Panic.
    read_only: true
  - name: refuse
    description: Fail with a plugin code.
    read_only: true
`
