// Package web serves the dashboard: the production build of web/ (Vite
// writes it into dist here), embedded in the binary. A clone without a
// build embeds only dist/.keep and serves a page saying how to build it.
package web

import (
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"
)

//go:embed all:dist
var dist embed.FS

// Dist returns the embedded build.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // "dist" is a valid path: cannot happen
	}
	return sub
}

// Cache policies: Vite names everything under assets/ by its content hash,
// so it never changes; index.html names the current hashes, so a browser
// must revalidate it every time.
const (
	cacheImmutable = "public, max-age=31536000, immutable"
	cacheNone      = "no-cache"
)

const notBuilt = "The dashboard is not built into this binary. Build it with 'make build' (needs Node 20 or newer); the API is at /api/v1.\n"

// Handler serves fsys for GET and HEAD requests outside /api/: a file when
// one exists, and index.html for any other path without a file extension,
// so the app's own routes (/clusters/abc) load on a deep link. Everything
// else goes on to the next handler.
func Handler(fsys fs.FS) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p := c.Path()
		if (c.Method() != http.MethodGet && c.Method() != http.MethodHead) || p == "/api" || strings.HasPrefix(p, "/api/") {
			return c.Next()
		}
		name := strings.TrimPrefix(path.Clean("/"+p), "/")
		if name != "" && name != "index.html" {
			if b, err := fs.ReadFile(fsys, name); err == nil {
				return send(c, name, b)
			}
			if path.Ext(name) != "" {
				return c.Next()
			}
		}
		b, err := fs.ReadFile(fsys, "index.html")
		if err != nil {
			c.Set(fiber.HeaderCacheControl, cacheNone)
			return c.Status(http.StatusNotFound).Type("txt").SendString(notBuilt)
		}
		return send(c, "index.html", b)
	}
}

func send(c *fiber.Ctx, name string, b []byte) error {
	cache := cacheNone
	if strings.HasPrefix(name, "assets/") {
		cache = cacheImmutable
	}
	c.Set(fiber.HeaderCacheControl, cache)
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		c.Set(fiber.HeaderContentType, t)
	} else {
		c.Set(fiber.HeaderContentType, fiber.MIMEOctetStream)
	}
	return c.Send(b)
}
