package api

// OpenAPIDocument returns the document GET /openapi.json serves; the
// dashboard's TypeScript types are generated from it (make web-types).
func OpenAPIDocument() []byte { return openAPIDoc }
