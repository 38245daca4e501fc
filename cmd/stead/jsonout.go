package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"text/tabwriter"

	"github.com/stead-dev/stead/session"
)

// jsonField is one member of a JSON object written by writeJSON.
type jsonField struct {
	name string
	// value is encoded whole, unless items is set.
	value any
	// items yields the elements of an array one at a time, so a long
	// array is never held encoded in memory whole.
	items func(yield func(any) error) error
}

// writeJSON writes an object of the given fields, indented with two spaces
// and with HTML characters left as they are, as json.Encoder with
// SetIndent("", "  ") would, but streaming arrays element by element.
func writeJSON(w io.Writer, fields ...jsonField) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var e jsonEncoder
	bw.WriteString("{\n")
	for i, f := range fields {
		name, _ := json.Marshal(f.name)
		bw.WriteString("  ")
		bw.Write(name)
		bw.WriteString(": ")
		if f.items == nil {
			out, err := e.encode(f.value, 1)
			if err != nil {
				return err
			}
			bw.Write(out)
		} else {
			// Elements are encoded a batch at a time, the batch shared
			// among the cores, and written in order.
			n := 0
			var batch []any
			flush := func() error {
				outs, err := encodeAll(batch, 2)
				if err != nil {
					return err
				}
				for _, out := range outs {
					if n == 0 {
						bw.WriteString("[\n")
					} else {
						bw.WriteString(",\n")
					}
					n++
					bw.WriteString("    ")
					bw.Write(out)
				}
				batch = batch[:0]
				return nil
			}
			err := f.items(func(v any) error {
				batch = append(batch, v)
				if len(batch) < jsonBatch {
					return nil
				}
				return flush()
			})
			if err == nil {
				err = flush()
			}
			if err != nil {
				return err
			}
			if n == 0 {
				bw.WriteString("[]")
			} else {
				bw.WriteString("\n  ]")
			}
		}
		if i < len(fields)-1 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// jsonBatch is how many elements of an array writeJSON encodes at once.
const jsonBatch = 512

// encodeAll encodes vs, indented at depth, a share per core.
func encodeAll(vs []any, depth int) ([][]byte, error) {
	outs := make([][]byte, len(vs))
	workers := min(runtime.GOMAXPROCS(0), 1+len(vs)/64)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			var e jsonEncoder
			for i := k; i < len(vs); i += workers {
				out, err := e.encode(vs[i], depth)
				if err != nil {
					errs[k] = err
					return
				}
				outs[i] = bytes.Clone(out)
			}
		})
	}
	wg.Wait()
	return outs, errors.Join(errs...)
}

// jsonEncoder encodes values as writeJSON writes them.
type jsonEncoder struct {
	buf               bytes.Buffer
	enc               *json.Encoder
	compact, indented []byte
}

// encode is v indented, its lines after the first at depth levels of two
// spaces; it is valid until the next call.
func (e *jsonEncoder) encode(v any, depth int) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		// A row of a long array, written without reflection.
		var err error
		if e.compact, err = a.appendJSON(e.compact[:0]); err != nil {
			return nil, err
		}
	} else {
		if e.enc == nil {
			e.enc = json.NewEncoder(&e.buf)
			e.enc.SetEscapeHTML(false)
		}
		e.buf.Reset()
		if err := e.enc.Encode(v); err != nil {
			return nil, err
		}
		e.compact = append(e.compact[:0], bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))...)
	}
	// Indented here: json.Encoder's indenting walks the bytes with its
	// full scanner, half the time of a long listing.
	e.indented = session.AppendJSON(e.indented[:0], e.compact, depth, true)
	return e.indented, nil
}

// A jsonAppender writes itself as compact JSON, as json.Marshal would
// with HTML characters left as they are.
type jsonAppender interface {
	appendJSON(b []byte) ([]byte, error)
}

// plural is n and noun, with an s unless n is 1: "1 session", "2 sessions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// table is a tabwriter whose output is buffered: a tabwriter writes each
// cell on its own when flushed, and standard output is not buffered (a
// list of 10,000 sessions was 20,000 writes).
type table struct {
	*tabwriter.Writer
	buf *bufio.Writer
}

func newTable(w io.Writer, minwidth, tabwidth, padding int) *table {
	buf := bufio.NewWriterSize(w, 64<<10)
	return &table{tabwriter.NewWriter(buf, minwidth, tabwidth, padding, ' ', 0), buf}
}

// Flush writes out what the table holds.
func (t *table) Flush() error {
	if err := t.Writer.Flush(); err != nil {
		return err
	}
	return t.buf.Flush()
}
