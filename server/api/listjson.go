package api

import (
	gojson "github.com/goccy/go-json"
	"github.com/gofiber/fiber/v2"
)

// sendClusterList answers GET /clusters with out encoded by goccy/go-json
// rather than encoding/json: 59 µs instead of 147 µs and 2 allocations
// instead of 202 for a 100-row page (encoding/json calls time.Time's
// MarshalJSON for the two timestamps of every row, then re-scans its
// output), a tenth of the CPU such a request costs. Its output is byte for
// byte encoding/json's for this type (listjson_test.go), so clients see no
// change. Only this type: the rest of the API keeps fiber's encoding/json,
// whose output nobody has compared for them.
//
// It encodes straight into the response's pooled body buffer: Marshal's
// copy of a 100-row page was 40 KB per request, the largest allocation
// left. The encoder ends the body with a newline, as encoding/json's
// Encoder does (routes answered through Marshal end without one).
func sendClusterList(c *fiber.Ctx, out clusterList) error {
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	return gojson.NewEncoder(c.Response().BodyWriter()).Encode(out)
}
