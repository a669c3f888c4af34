//go:build tools

// Pins kubeconform, which validates the Helm chart's rendered manifests
// against Kubernetes JSON schemas. Built by scripts/setup.sh into .tools/bin.
package tools

import _ "github.com/yannh/kubeconform/cmd/kubeconform"
