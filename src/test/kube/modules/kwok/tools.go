//go:build tools

// Package tools pins kwok's command at the version in go.mod.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
