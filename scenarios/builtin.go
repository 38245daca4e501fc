package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The scenarios stead ships, and the sessions they start from.
//
//go:embed *.yaml sessions
var builtin embed.FS

// Builtin returns the scenarios stead ships, by name (the file name
// without .yaml).
func Builtin() (map[string]*Scenario, error) {
	names, err := fs.Glob(builtin, "*.yaml")
	if err != nil {
		return nil, err
	}
	out := map[string]*Scenario{}
	var errs []error
	for _, n := range names {
		sc, err := Parse(builtin, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[strings.TrimSuffix(n, ".yaml")] = sc
	}
	return out, errors.Join(errs...)
}

// BuiltinNames lists the shipped scenarios' names, sorted.
func BuiltinNames() []string {
	names, _ := fs.Glob(builtin, "*.yaml")
	for i, n := range names {
		names[i] = strings.TrimSuffix(n, ".yaml")
	}
	sort.Strings(names)
	return names
}

// Find reads a scenario: a file, or one stead ships by name.
func Find(ref string) (*Scenario, error) {
	if fi, err := os.Stat(ref); err == nil && fi.Mode().IsRegular() {
		abs, err := filepath.Abs(ref)
		if err != nil {
			return nil, err
		}
		sc, err := Parse(os.DirFS(filepath.Dir(abs)), filepath.Base(abs))
		if sc != nil {
			sc.File = ref
		}
		return sc, err
	}
	name := strings.TrimSuffix(ref, ".yaml")
	if _, err := fs.Stat(builtin, name+".yaml"); err == nil && !strings.Contains(name, "/") {
		sc, err := Parse(builtin, name+".yaml")
		if sc != nil {
			sc.File = "built-in " + name
		}
		return sc, err
	}
	return nil, fmt.Errorf("no scenario file %q, and stead ships none of that name (it ships %s): %w",
		ref, strings.Join(BuiltinNames(), ", "), fs.ErrNotExist)
}
