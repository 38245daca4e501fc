package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/pricing"
	"github.com/stead-dev/stead/runs"
	"github.com/stead-dev/stead/session"
)

// Cookie is the name of the cookie a sign-in sets.
const Cookie = "stead_token"

// SignInFor is how long a sign-in code can be used (once).
const SignInFor = 2 * time.Minute

// policy is every response's Content-Security-Policy: the pages run only
// their own scripts and styles, load nothing from elsewhere, and cannot
// be framed.
const policy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed assets
var assets embed.FS

// A Server is the control room's HTTP handler. Set its fields, then call
// Handler; the fields are not changed afterwards.
type Server struct {
	// Env is the environment whose stores the server reads, and where
	// stead's index and state are.
	Env    session.Env
	Logger *slog.Logger
	// Token is the secret every request for data carries (a bearer
	// token, or the cookie a sign-in set). It must not be empty.
	Token string
	// ReadOnly refuses every request that would change anything.
	ReadOnly bool
	// Hosts are the host names the server may be reached as besides the
	// loopback ones (localhost, 127.0.0.1, ::1): the names of a machine
	// it listens beyond loopback on.
	Hosts []string
	// Host names this machine in what the API returns; "" is its
	// hostname.
	Host string
	// Supervisor reaches the runs on its Bus; nil when there is no bus.
	Supervisor *runs.Supervisor
	// Version is stead's version.
	Version string
	// Prices prices the sessions' usage; nil is the built-in table.
	Prices *pricing.Table
	// ABDir is where the A/B runs are kept (stead ab); "" is none.
	ABDir string
	// Context bounds the work a request starts in the background (an A/B
	// run); nil is context.Background(). Wait waits for that work.
	Context context.Context

	init   sync.Once
	mux    *http.ServeMux
	mu     sync.Mutex
	codes  map[string]time.Time   // sign-in codes and when they expire
	last   *scanned               // the last scan of a watched index
	jobs   sync.WaitGroup         // work started in the background
	chains map[string]*chainState // the chains started, by id
	hub    hub                    // the pages listening for changes
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler {
	s.init.Do(s.routes)
	return http.HandlerFunc(s.serve)
}

// Wait waits until the work requests started in the background (A/B
// runs) has ended: end Context first.
func (s *Server) Wait() { s.jobs.Wait() }

func (s *Server) background() context.Context {
	if s.Context == nil {
		return context.Background()
	}
	return s.Context
}

// SignIn returns a new one-time sign-in code: /signin?code=<code> sets
// the cookie and opens the control room, once, within SignInFor.
func (s *Server) SignIn() string {
	code := NewToken()
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.codes == nil {
		s.codes = map[string]time.Time{}
	}
	for c, until := range s.codes {
		if now.After(until) {
			delete(s.codes, c)
		}
	}
	s.codes[code] = now.Add(SignInFor)
	return code
}

// useCode reports whether code is a valid sign-in code, and spends it.
func (s *Server) useCode(code string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	until, ok := s.codes[code]
	if !ok {
		return false
	}
	delete(s.codes, code)
	return time.Now().Before(until)
}

// NewToken returns 32 random bytes, URL-safe.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *Server) log() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

func (s *Server) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, errorf(http.StatusMethodNotAllowed, "%s is not allowed here", r.Method))
			return
		}
		files.ServeHTTP(w, r)
	})
	m.HandleFunc("GET /signin", s.signin)
	for _, rt := range apiRoutes {
		m.Handle(rt.Method+" "+rt.Path, s.authorized(func(w http.ResponseWriter, r *http.Request) error {
			return rt.handle(s, w, r)
		}))
	}
	m.Handle("/api/", s.authorized(func(w http.ResponseWriter, r *http.Request) error {
		return errorf(http.StatusNotFound, "no such API: %s %s", r.Method, r.URL.Path)
	}))
	s.mux = m
}

// route is one endpoint of the API: docs/openapi.yaml describes each
// (TestOpenAPI).
type route struct {
	Method, Path string
	handle       func(*Server, http.ResponseWriter, *http.Request) error
}

var apiRoutes = []route{
	{"POST", "/api/v1/signin", (*Server).newSignIn},
	{"GET", "/api/v1/info", (*Server).info},
	{"GET", "/api/v1/events", (*Server).changes},
	{"GET", "/api/v1/sessions", (*Server).sessions},
	{"GET", "/api/v1/sessions/{ref}", (*Server).session},
	{"GET", "/api/v1/sessions/{ref}/export", (*Server).export},
	{"GET", "/api/v1/sessions/{ref}/events", (*Server).sessionEvents},
	{"GET", "/api/v1/search", (*Server).search},
	{"GET", "/api/v1/usage", (*Server).usage},
	{"GET", "/api/v1/ab", (*Server).abs},
	{"POST", "/api/v1/ab", (*Server).startAB},
	{"GET", "/api/v1/ab/{ab}", (*Server).ab},
	{"GET", "/api/v1/chains", (*Server).chainList},
	{"POST", "/api/v1/chains", (*Server).startChain},
	{"GET", "/api/v1/chains/{chain}", (*Server).chain},
	{"GET", "/api/v1/runs", (*Server).runs},
	{"POST", "/api/v1/runs", (*Server).start},
	{"GET", "/api/v1/runs/{run}", (*Server).run},
	{"GET", "/api/v1/runs/{run}/events", (*Server).events},
	{"POST", "/api/v1/runs/{run}/input", (*Server).input},
	{"POST", "/api/v1/runs/{run}/stop", (*Server).stop},
	{"POST", "/api/v1/runs/{run}/resize", (*Server).resize},
}

// serve checks every request's Host and Origin, sets the headers every
// response carries, and hands it on.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if !s.knownHost(r.Host) {
		// A name that is not this server's: a page of another site
		// that resolved its own name to this address.
		s.log().Warn("web: refused a request for another host", "host", r.Host, "path", r.URL.Path)
		writeError(w, errorf(http.StatusMisdirectedRequest, "this server does not answer for host %q", r.Host))
		return
	}
	if err := sameOrigin(r); err != nil {
		s.log().Warn("web: refused a cross-origin request", "origin", r.Header.Get("Origin"), "path", r.URL.Path)
		writeError(w, err)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		h.Set("Cache-Control", "no-store")
	}
	s.mux.ServeHTTP(w, r)
}

// knownHost reports whether a request's Host names this server: a
// loopback name, or one of s.Hosts.
func (s *Server) knownHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, h := range s.Hosts {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// sameOrigin refuses a request a page of another origin made: its
// Origin, when it has one, must be the server's own (scheme, host and
// port), and a browser's Sec-Fetch-Site must not say another site.
// A request that changes anything must say where it comes from.
func sameOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin != "" {
		u, err := url.Parse(origin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Host, r.Host) {
			return errorf(http.StatusForbidden, "requests from origin %q are refused", origin)
		}
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		// Another site may link to the pages (they hold no data), not
		// reach the API or sign in.
		if r.Method != http.MethodGet || strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/signin" {
			return errorf(http.StatusForbidden, "requests from another site are refused")
		}
	}
	if !safe(r.Method) && origin == "" && r.Header.Get("Authorization") == "" {
		// A browser sends Origin with every request that changes
		// anything; a script sends its token.
		return errorf(http.StatusForbidden, "a request that changes anything needs an Origin or a bearer token")
	}
	return nil
}

func safe(method string) bool {
	return method == http.MethodGet || method == http.MethodHead || method == http.MethodOptions
}

// authorized serves h only to a request with the token, as a bearer
// token or a sign-in's cookie, and refuses one that changes anything on
// a read-only server.
func (s *Server) authorized(h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hasToken(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="stead"`)
			writeError(w, errorf(http.StatusUnauthorized, "sign in with `stead ui`, or send the token as a bearer token"))
			return
		}
		if s.ReadOnly && !safe(r.Method) && r.URL.Path != "/api/v1/signin" {
			writeError(w, errorf(http.StatusForbidden, "this server is read-only (stead serve --read-only)"))
			return
		}
		if err := h(w, r); err != nil {
			if r.Context().Err() != nil {
				return // the client went away
			}
			var he *httpError
			if !errors.As(err, &he) || he.code >= 500 {
				s.log().Error("web: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
			}
			writeError(w, err)
		}
	})
}

func (s *Server) hasToken(r *http.Request) bool {
	if s.Token == "" {
		return false
	}
	got := ""
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, tok, ok := strings.Cut(auth, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return false
		}
		got = strings.TrimSpace(tok)
	} else if c, err := r.Cookie(Cookie); err == nil {
		got = c.Value
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.Token)) == 1
}

// signin spends a one-time code, sets the cookie and opens the control
// room, leaving the code out of the address bar and the history.
func (s *Server) signin(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	if code == "" || !s.useCode(code) {
		writeError(w, errorf(http.StatusUnauthorized, "this sign-in link was used or has expired: run `stead ui` again"))
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: Cookie, Value: s.Token, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) newSignIn(w http.ResponseWriter, r *http.Request) error {
	code := s.SignIn()
	return writeJSON(w, map[string]any{"code": code, "path": "/signin?code=" + code,
		"expires": session.FormatTime(time.Now().Add(SignInFor))})
}

// httpError is an error with the HTTP status it answers with.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func errorf(code int, format string, args ...any) error {
	return &httpError{code: code, msg: fmt.Sprintf(format, args...)}
}

// writeError answers with err as {"error": …} and its status (500 for an
// error that carries none).
func writeError(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	var he *httpError
	switch {
	case errors.As(err, &he):
		code = he.code
	case errors.Is(err, session.ErrNotFound):
		code = http.StatusNotFound
	case errors.Is(err, session.ErrAmbiguous), errors.Is(err, session.ErrUnsupported):
		code = http.StatusBadRequest
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
