// Command openapi prints the API's OpenAPI document, from which the
// dashboard's TypeScript types are generated (make web-types).
package main

import (
	"os"

	"github.com/ochestra-tech/kubeopera/server/api"
)

func main() { _, _ = os.Stdout.Write(api.OpenAPIDocument()) }
