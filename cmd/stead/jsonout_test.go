package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stead-dev/stead/session"
)

// TestWriteJSONMatchesEncoder checks the streaming writer produces exactly
// what json.Encoder with two-space indentation does.
func TestWriteJSONMatchesEncoder(t *testing.T) {
	type item struct {
		A string         `json:"a"`
		B map[string]int `json:"b"`
		C []int          `json:"c"`
	}
	items := []item{{"x<y>&", map[string]int{"k": 1}, []int{1, 2}}, {"", nil, []int{}}}
	var long []item // more than a batch (jsonBatch), in order
	for i := range 2*jsonBatch + 7 {
		long = append(long, item{A: fmt.Sprint(i), C: []int{i}})
	}
	for _, list := range [][]item{items, {}, long} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Items  []item         `json:"items"`
			Totals map[string]int `json:"totals"`
		}{list, map[string]int{"n": len(list)}})
		var got bytes.Buffer
		err := writeJSON(&got,
			jsonField{name: "items", items: func(yield func(any) error) error {
				for _, it := range list {
					if err := yield(it); err != nil {
						return err
					}
				}
				return nil
			}},
			jsonField{name: "totals", value: map[string]int{"n": len(list)}})
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
		}
	}
}

// FuzzListJSON: a listing's row is written as json.Marshal (HTML left as
// it is) writes it, whatever its strings hold.
func FuzzListJSON(f *testing.F) {
	f.Add("claude", "a title with \"quotes\", <html> & \\ and \u2028", "/p\x00\x1f\x7f", "\xff\xfe bad utf-8", 3, int64(-1), true)
	f.Add("", "", "", "", 0, int64(0), false)
	f.Fuzz(func(t *testing.T, cli, title, path, project string, n int, size int64, parent bool) {
		start := "2026-11-26T10:00:00.000Z"
		l := listJSON{CLI: cli, ID: title + path, Project: project, Title: title, Start: &start,
			Messages: n, Turns: -n, Path: path, Size: size}
		if parent {
			l.Parent = &session.Link{Kind: session.LinkFork, CLI: cli, ID: title, Path: "<" + path + ">"}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(l); err != nil {
			t.Fatal(err)
		}
		got, err := l.appendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
			t.Errorf("\n got %s\nwant %s", got, w)
		}
	})
}
