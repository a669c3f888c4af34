//go:build tools

// Pins the OPA CLI used to compile Rego to WebAssembly. Built by
// scripts/setup.sh into .tools/bin.
package tools

import _ "github.com/open-policy-agent/opa"
