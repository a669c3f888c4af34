//go:build tools

// Pins (with go.sum) the FerretDB v1 module whose source scripts/setup.sh
// builds into .tools/bin/ferretdb: the MongoDB-wire server (SQLite backend)
// that the test harness starts when no MONGODB_URL or mongod is available.
package tools

import _ "github.com/FerretDB/FerretDB/cmd/ferretdb"
