//go:build tools

// Package oapicodegen pins oapi-codegen, which generates the CLI's API
// client (internal/apiclient) from the server's OpenAPI document (make
// generate).
package oapicodegen

import _ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
