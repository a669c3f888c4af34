//go:build tools

// Pins the Helm CLI that lints and renders deploy/helm/delivery-evidence-service
// (helm lint, helm template). Built by scripts/setup.sh into .tools/bin.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
