// Package web is stead's control room: an HTTP server with a versioned
// JSON API (/api/v1/…) and the pages that call it, served from assets
// embedded in the program. The daemon hosts it (stead serve); stead ui
// opens it signed in.
//
// Every request for data carries the server's token: as a bearer token
// (scripts), or as the HttpOnly, SameSite=Strict cookie a one-time
// sign-in URL sets (the browser). Every request's Host must be one the
// server listens as, so that a page of another site cannot reach it
// through a name that resolves to the loopback address (DNS rebinding),
// and a request that changes anything must come from the server's own
// origin. Every session text is untrusted: the pages show it as text,
// under a Content-Security-Policy that runs no inline script.
package web
