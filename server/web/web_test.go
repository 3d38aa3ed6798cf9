package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gofiber/fiber/v2"
)

func TestHandlerServesTheAppWithItsCachePolicies(t *testing.T) {
	build := fstest.MapFS{
		"index.html":             {Data: []byte(`<div id="root"></div><script type="module" src="/assets/index-abc123.js"></script>`)},
		"assets/index-abc123.js": {Data: []byte("console.log(1)")},
		"favicon.svg":            {Data: []byte("<svg/>")},
	}
	app := fiber.New()
	app.Use(Handler(build))
	app.Use(func(c *fiber.Ctx) error { return c.Status(http.StatusTeapot).SendString("next") })
	for _, tc := range []struct {
		name, method, path    string
		status                int
		cache, ctype, bodyHas string
	}{
		{"index at /", "GET", "/", 200, cacheNone, "text/html", "root"},
		{"a deep link gets the app", "GET", "/clusters/7e9d3a1b", 200, cacheNone, "text/html", "root"},
		{"hashed assets are immutable", "GET", "/assets/index-abc123.js", 200, cacheImmutable, "javascript", "console"},
		{"other files revalidate", "GET", "/favicon.svg", 200, cacheNone, "image/svg", "svg"},
		{"HEAD works too", "HEAD", "/clusters", 200, cacheNone, "text/html", ""},
		{"a missing asset is not the app", "GET", "/assets/gone-123.js", 418, "", "", "next"},
		{"the API is left alone", "GET", "/api/v1/nope", 418, "", "", "next"},
		{"writes are left alone", "POST", "/clusters", 418, "", "", "next"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := app.Test(httptest.NewRequest(tc.method, tc.path, nil))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || resp.Header.Get("Cache-Control") != tc.cache {
				t.Errorf("%s %s: %d, Cache-Control %q; want %d, %q", tc.method, tc.path, resp.StatusCode,
					resp.Header.Get("Cache-Control"), tc.status, tc.cache)
			}
			if !contains(resp.Header.Get("Content-Type"), tc.ctype) || !contains(string(b), tc.bodyHas) {
				t.Errorf("%s %s: Content-Type %q, body %q", tc.method, tc.path, resp.Header.Get("Content-Type"), b)
			}
		})
	}
}

func TestHandlerWithoutABuildSaysHowToMakeOne(t *testing.T) {
	app := fiber.New()
	app.Use(Handler(fstest.MapFS{".keep": {}}))
	resp, err := app.Test(httptest.NewRequest("GET", "/clusters", nil))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || !contains(string(b), "make build") {
		t.Errorf("no build: %d %q", resp.StatusCode, b)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
