#!/usr/bin/env bash
# Idempotent setup: Node dependencies, then the real engines the service and
# its tests use, installed only where missing. Prints what it found and built.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
TOOLS="$ROOT/.tools"
mkdir -p "$TOOLS/bin"
say() { printf '[setup] %s\n' "$*"; }

# Native modules (better-sqlite3) compile against the local Node headers when
# no prebuilt binary can be downloaded.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
  export npm_config_nodedir=/usr
fi

if [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] \
  && node -e "require('better-sqlite3')" 2>/dev/null; then
  say "node_modules up to date"
else
  say "npm ci"
  # The registry here serves no macOS/Windows builds of msgpackr-extract, so
  # no lockfile can list them and npm ci's sync check refuses; npm install
  # still installs exactly the locked versions and leaves the lock unchanged.
  if ! npm ci --no-fund --no-audit 2>"$TOOLS/npm-ci.log"; then
    say "npm ci refused: $( (grep -m1 'Missing' "$TOOLS/npm-ci.log" || grep -m1 'error' "$TOOLS/npm-ci.log") | sed 's/^npm error //'); npm install from the lock"
    npm install --no-fund --no-audit
  fi
fi

apt_missing=()
command -v redis-server >/dev/null 2>&1 || apt_missing+=(redis-server)
command -v chromium >/dev/null 2>&1 || [ -n "${PUPPETEER_EXECUTABLE_PATH:-}" ] || apt_missing+=(chromium)
command -v pdftotext >/dev/null 2>&1 || apt_missing+=(poppler-utils)
# The documentation's examples (and the test that runs them) use curl, jq, openssl and unzip.
for tool in curl jq openssl unzip; do command -v "$tool" >/dev/null 2>&1 || apt_missing+=("$tool"); done
# PostgreSQL, a backend of the FerretDB the benchmarks measure (test/support/engines.ts starts a throwaway
# cluster), unless the user has a MongoDB: Debian keeps its programs in /usr/lib/postgresql/<version>/bin.
postgres_bin() {
  local initdb
  initdb=$(command -v initdb 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1)
  [ -n "$initdb" ] && dirname "$(readlink -f "$initdb")"
}
if [ -z "${MONGODB_URL:-}" ] && ! command -v mongod >/dev/null 2>&1 && [ -z "$(postgres_bin)" ]; then
  apt_missing+=(postgresql)
fi
if [ ${#apt_missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing from Debian: ${apt_missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_missing[@]}" >/dev/null
  else
    say "missing and cannot install (not root): ${apt_missing[*]}"
  fi
fi
say "redis-server: $(command -v redis-server || echo missing)"
say "chromium: ${PUPPETEER_EXECUTABLE_PATH:-$(command -v chromium || echo missing)}"
say "curl: $(command -v curl || echo missing); jq: $(command -v jq || echo missing); openssl: $(command -v openssl || echo missing); unzip: $(command -v unzip || echo missing)"
if [ -z "${MONGODB_URL:-}" ] && ! command -v mongod >/dev/null 2>&1; then
  # Debian's package makes a cluster of its own and starts it as a service where there is one; the tests use none.
  say "postgresql: $(postgres_bin || echo missing)$( [ -n "$(postgres_bin)" ] && printf ' (%s)' "$("$(postgres_bin)/postgres" --version)")"
fi

# The OPA compiler and a MongoDB-wire server come from Go modules when the
# machine has neither; both builds run in parallel.
build_opa() {
  (cd tools/opa && go build -o "$TOOLS/bin/opa" github.com/open-policy-agent/opa)
  say "opa: $TOOLS/bin/opa ($("$TOOLS/bin/opa" version | head -1))"
}
build_ferretdb() {
  local version src
  version=$(sed -n 's/^require github.com\/FerretDB\/FerretDB \(v[0-9.]*\)$/\1/p' tools/ferretdb/go.mod)
  src=$(cd tools/ferretdb && go mod download -json github.com/FerretDB/FerretDB | node -e \
    'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Dir))')
  rm -rf "$TOOLS/src/ferretdb" && mkdir -p "$TOOLS/src"
  cp -r "$src" "$TOOLS/src/ferretdb" && chmod -R u+w "$TOOLS/src/ferretdb"
  # FerretDB embeds its version at build time; the module source leaves that file to the builder.
  echo "$version" > "$TOOLS/src/ferretdb/build/version/version.txt"
  # Its SQLite backend's lookups by _id served by the _id index it makes (ADR 0049).
  git apply --directory="${TOOLS#"$PWD/"}/src/ferretdb" tools/ferretdb/sqlite-id-lookups.patch
  (cd "$TOOLS/src/ferretdb" && go build -o "$TOOLS/bin/ferretdb" ./cmd/ferretdb)
  ferretdb_stamp > "$TOOLS/bin/ferretdb.stamp"
  say "ferretdb: $TOOLS/bin/ferretdb ($version, patched)"
}
# What the built FerretDB was made from: its version and our patch.
ferretdb_stamp() { cat tools/ferretdb/go.mod tools/ferretdb/sqlite-id-lookups.patch | sha256sum; }

builds=()
# OPA compiler: OPA_PATH, else opa on the PATH, else built from its Go module (tools/opa/go.mod).
if [ -n "${OPA_PATH:-}" ] || command -v opa >/dev/null 2>&1; then
  say "opa: ${OPA_PATH:-$(command -v opa)}"
elif [ -x "$TOOLS/bin/opa" ]; then
  say "opa: $TOOLS/bin/opa (built earlier)"
elif command -v go >/dev/null 2>&1; then
  say "building opa from its Go module (pinned in tools/opa/go.mod)"
  build_opa & builds+=($!)
else
  say "opa: missing (no Go toolchain to build it)"
fi

# MongoDB-wire server for tests: MONGODB_URL or mongod if the user has them,
# else FerretDB v1 from its Go module (tools/ferretdb/go.mod), run on its SQLite backend or,
# with DES_TEST_FERRETDB_BACKEND=postgresql (and in the benchmarks, side by side), on PostgreSQL (above).
if [ -n "${MONGODB_URL:-}" ] || command -v mongod >/dev/null 2>&1; then
  say "mongodb: ${MONGODB_URL:-$(command -v mongod)}"
elif [ -x "$TOOLS/bin/ferretdb" ] && [ "$(cat "$TOOLS/bin/ferretdb.stamp" 2>/dev/null)" = "$(ferretdb_stamp)" ]; then
  say "ferretdb: $TOOLS/bin/ferretdb (built earlier)"
elif command -v go >/dev/null 2>&1; then
  say "building ferretdb from its Go module (pinned in tools/ferretdb/go.mod)"
  build_ferretdb & builds+=($!)
else
  say "ferretdb: missing (no Go toolchain to build it)"
fi

# schemathesis (the API fuzzer the tests run against the OpenAPI document), pinned, in a git-ignored virtual environment.
install_schemathesis() {
  python3 -m venv "$TOOLS/venv" && "$TOOLS/venv/bin/pip" install -q -r tools/schemathesis/requirements.txt
  say "schemathesis: $("$TOOLS/venv/bin/st" --version)"
}
if [ -x "$TOOLS/venv/bin/st" ] && "$TOOLS/venv/bin/pip" freeze 2>/dev/null | grep -qxF -f tools/schemathesis/requirements.txt; then
  say "schemathesis: $TOOLS/venv/bin/st (installed earlier)"
elif command -v python3 >/dev/null 2>&1; then
  say "installing schemathesis into $TOOLS/venv (pinned in tools/schemathesis/requirements.txt)"
  install_schemathesis & builds+=($!)
else
  say "schemathesis: missing (no python3)"
fi
for pid in "${builds[@]}"; do wait "$pid"; done

# ---- deploy tooling (docker/, deploy/helm/, test/deploy-manifests.test.ts) ----
# helm and kubeconform, built from their Go modules (pinned in tools/helm/go.mod
# and tools/kubeconform/go.mod) into .tools/bin; the JSON schemas the test
# validates against, made offline from Go modules (no schema file is committed):
# the compose-spec schema that compose-go embeds, and Kubernetes' schemas for
# kubeconform from the OpenAPI document in the Kubernetes source plus the
# Prometheus Operator's ServiceMonitor CRD (tools/k8s-schemas/openapi2jsonschema.mjs).
# Each is redone only when its pin (or the converter) changed.
DEPLOY_K8S_MODULE=k8s.io/kubernetes@v1.37.2
DEPLOY_PROMETHEUS_OPERATOR_MODULE=github.com/prometheus-operator/prometheus-operator@v0.85.0
DEPLOY_COMPOSE_GO_MODULE=github.com/compose-spec/compose-go/v2@v2.16.2
deploy_module_dir() { # MODULE@VERSION -> its source directory in the Go module cache
  (cd "$TOOLS" && go mod download -json "$1") | node -e \
    'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const m=JSON.parse(s);if(m.Error)throw new Error(m.Error);console.log(m.Dir)})'
}
deploy_pin() { # go.mod MODULE -> the version it requires
  sed -n "s#^require $2 \(v[^ ]*\)\$#\1#p" "$1"
}
build_helm() {
  local version; version=$(deploy_pin tools/helm/go.mod helm.sh/helm/v4)
  (cd tools/helm && go build -ldflags "-X helm.sh/helm/v4/internal/version.version=$version" -o "$TOOLS/bin/helm" helm.sh/helm/v4/cmd/helm)
  say "helm: $TOOLS/bin/helm ($("$TOOLS/bin/helm" version --template '{{.Version}}'))"
}
build_kubeconform() {
  local version; version=$(deploy_pin tools/kubeconform/go.mod github.com/yannh/kubeconform)
  (cd tools/kubeconform && go build -ldflags "-X main.version=$version" -o "$TOOLS/bin/kubeconform" github.com/yannh/kubeconform/cmd/kubeconform)
  say "kubeconform: $TOOLS/bin/kubeconform ($("$TOOLS/bin/kubeconform" -v))"
}
make_k8s_schemas() {
  local k8s crds
  k8s=$(deploy_module_dir "$DEPLOY_K8S_MODULE")
  crds=$(deploy_module_dir "$DEPLOY_PROMETHEUS_OPERATOR_MODULE")/example/prometheus-operator-crd
  node tools/k8s-schemas/openapi2jsonschema.mjs --version "${DEPLOY_K8S_MODULE#*@}" --out "$TOOLS/k8s-schemas.new" \
    --swagger "$k8s/api/openapi-spec/swagger.json" --crd "$crds/monitoring.coreos.com_servicemonitors.yaml" >/dev/null
  echo "$1" > "$TOOLS/k8s-schemas.new/.source"
  rm -rf "$TOOLS/k8s-schemas" && mv "$TOOLS/k8s-schemas.new" "$TOOLS/k8s-schemas"
  say "kubernetes schemas: $TOOLS/k8s-schemas ($(ls "$TOOLS"/k8s-schemas/*-standalone-strict | wc -l) kinds, from $DEPLOY_K8S_MODULE)"
}
make_compose_schema() {
  local dir; dir=$(deploy_module_dir "$DEPLOY_COMPOSE_GO_MODULE")
  mkdir -p "$TOOLS/compose-spec"
  cp "$dir/schema/compose-spec.json" "$TOOLS/compose-spec/compose-spec.json.new"
  chmod u+w "$TOOLS/compose-spec/compose-spec.json.new"
  mv "$TOOLS/compose-spec/compose-spec.json.new" "$TOOLS/compose-spec/compose-spec.json"
  echo "$DEPLOY_COMPOSE_GO_MODULE" > "$TOOLS/compose-spec/.source"
  say "compose-spec schema: $TOOLS/compose-spec/compose-spec.json (from $DEPLOY_COMPOSE_GO_MODULE)"
}
if command -v go >/dev/null 2>&1; then
  builds=()
  if [ -x "$TOOLS/bin/helm" ] && [ "$("$TOOLS/bin/helm" version --template '{{.Version}}' 2>/dev/null)" = "$(deploy_pin tools/helm/go.mod helm.sh/helm/v4)" ]; then
    say "helm: $TOOLS/bin/helm (built earlier)"
  else
    say "building helm from its Go module (pinned in tools/helm/go.mod)"
    build_helm & builds+=($!)
  fi
  if [ -x "$TOOLS/bin/kubeconform" ] && [ "$("$TOOLS/bin/kubeconform" -v 2>/dev/null)" = "$(deploy_pin tools/kubeconform/go.mod github.com/yannh/kubeconform)" ]; then
    say "kubeconform: $TOOLS/bin/kubeconform (built earlier)"
  else
    say "building kubeconform from its Go module (pinned in tools/kubeconform/go.mod)"
    build_kubeconform
  fi
  k8s_source="$DEPLOY_K8S_MODULE $DEPLOY_PROMETHEUS_OPERATOR_MODULE $(sha256sum tools/k8s-schemas/openapi2jsonschema.mjs | cut -c1-16)"
  if [ "$(cat "$TOOLS/k8s-schemas/.source" 2>/dev/null)" = "$k8s_source" ]; then
    say "kubernetes schemas: $TOOLS/k8s-schemas (made earlier)"
  else
    make_k8s_schemas "$k8s_source"
  fi
  if [ -f "$TOOLS/compose-spec/compose-spec.json" ] && [ "$(cat "$TOOLS/compose-spec/.source" 2>/dev/null)" = "$DEPLOY_COMPOSE_GO_MODULE" ]; then
    say "compose-spec schema: $TOOLS/compose-spec/compose-spec.json (fetched earlier)"
  else
    make_compose_schema
  fi
  for pid in "${builds[@]}"; do wait "$pid"; done
else
  say "helm, kubeconform, kubernetes and compose schemas: missing (no Go toolchain to build or fetch them)"
fi
# ---- end of deploy tooling ----

say "done"
