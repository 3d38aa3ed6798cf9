//go:build tools

// Package hack pins the versions of the build tools KubeOpera generates code
// with. `make tools` builds them into bin/tools from this module, so a fresh
// machine gets exactly these versions from the Go module proxy.
package tools

import (
	_ "google.golang.org/grpc/cmd/protoc-gen-go-grpc"
	_ "google.golang.org/protobuf/cmd/protoc-gen-go"
)
