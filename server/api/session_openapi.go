package api

// sessionSchemas adds the sign-in schemas to the OpenAPI document. A
// variable initializer, so it runs before the init that builds the document.
var _ = addSchemas(map[string]any{
	"SignInRequest": obj(map[string]string{"username": "string", "password": "string"}, "username", "password"),
	"SessionUser":   obj(map[string]string{"id": "string", "username": "string", "email": "string", "role": "string"}, "username", "role"),
	"Session":       obj(map[string]string{"user": "#SessionUser", "csrfToken": "string", "expiresAt": "string"}, "user", "csrfToken"),
})

func addSchemas(m map[string]any) map[string]any {
	for k, v := range m {
		schemas[k] = v
	}
	return m
}
