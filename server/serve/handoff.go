package serve

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// A client may send requests of both servers on one keep-alive connection
// (a browser pools connections per origin). The server a connection went
// to hands such a request over to the other with the connection: it
// replays the request's bytes in front of what the connection still
// holds, so the client sees one ordinary answer.

// handOffToFiber serves /k8s/ with px and hands a connection whose request
// is for anything else to fiber.
func (f *front) handOffToFiber(px http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if bytes.HasPrefix([]byte(r.URL.Path), k8sPrefix) {
			px.ServeHTTP(w, r)
			return
		}
		var req bytes.Buffer
		if err := r.Write(&req); err != nil {
			http.Error(w, "could not read the request", http.StatusBadRequest)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			http.Error(w, "could not hand the connection over", http.StatusInternalServerError)
			return
		}
		_ = conn.SetDeadline(time.Time{}) // fiber sets its own
		if !f.api.put(withReader(conn, io.MultiReader(&req, rw.Reader), nil)) {
			conn.Close()
		}
	})
}

// handOffToK8s makes app's server hand a connection whose request is under
// /k8s/ to the cluster proxy. fasthttp closes a hijacked connection when
// the hijack handler returns, so the handler waits until the proxy's
// server closes it.
func (f *front) handOffToK8s(app *fiber.App) {
	srv := app.Server()
	next := srv.Handler
	srv.Handler = func(ctx *fasthttp.RequestCtx) {
		if !bytes.HasPrefix(ctx.Path(), k8sPrefix) {
			next(ctx)
			return
		}
		var req bytes.Buffer
		if _, err := ctx.Request.WriteTo(&req); err != nil {
			ctx.Error("could not read the request", http.StatusBadRequest)
			return
		}
		ctx.HijackSetNoResponse(true)
		ctx.Hijack(func(c net.Conn) {
			_ = c.SetDeadline(time.Time{}) // a watch outlives fiber's timeouts
			closed := make(chan struct{})
			if f.k8s.put(withReader(c, io.MultiReader(&req, c), func() { close(closed) })) {
				<-closed
			}
		})
	}
}
