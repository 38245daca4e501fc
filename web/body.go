package web

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// maxBody is the most a request's body may hold.
const maxBody = 1 << 20

// decodeBody reads a request's JSON body into v, refusing fields v does
// not have: what is the thing the body asks for ("a run to start").
func decodeBody(r *http.Request, v any, what string) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(http.StatusBadRequest, "the body is not %s: %v", what, err)
	}
	return nil
}

// runnableCLI is the adapter of a CLI stead runs, named in field.
func runnableCLI(field, name string) (adapters.Adapter, error) {
	a, ok := adapters.Lookup(name)
	if !ok || !a.Runs() {
		return a, errorf(http.StatusBadRequest, "%s: %q is not a CLI stead runs (%s)", field, name, strings.Join(runnable(), ", "))
	}
	return a, nil
}

func runnable() []string {
	var names []string
	for _, a := range adapters.All {
		if a.Runs() {
			names = append(names, a.Name)
		}
	}
	return names
}

// folder checks that dir, named in field, is an absolute path to a folder
// on this machine: where a run works (why says what for).
func folder(field, dir, why string) error {
	if !filepath.IsAbs(dir) {
		return errorf(http.StatusBadRequest, "%s: %q is not an absolute path: %s", field, dir, why)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return errorf(http.StatusBadRequest, "%s: %s is not a folder on this machine", field, dir)
	}
	return nil
}

// openRef reads the session a <cli>:<id> reference names, whole (a run
// starts from it); nil for "".
func (s *Server) openRef(ref string) (*session.Session, error) {
	if ref == "" {
		return nil, nil
	}
	a, r, err := s.resolve(ref)
	if err != nil {
		return nil, err
	}
	return a.Open(s.Env, r)
}
