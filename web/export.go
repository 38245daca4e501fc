package web

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/agenthistory"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/cusf"
	"github.com/stead-dev/stead/session"
)

// exportPolicy is the Content-Security-Policy of an exported page: its
// own styles, no script at all.
const exportPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

// export answers GET /api/v1/sessions/{ref}/export?format=…: the session
// as a file to keep, as `stead session export` writes it: usf (the
// universal JSON), cusf, ndjson (agent-history), or html (a page that
// reads offline, without scripts).
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	kind, ok := exportFormats[format]
	if !ok {
		return errorf(http.StatusBadRequest, "format: %q is not one of usf, cusf, ndjson, html", format)
	}
	ext, ctype := kind[0], kind[1]
	a, ref, err := s.resolve(r.PathValue("ref"))
	if err != nil {
		return err
	}
	src, err := catalog.Open(s.Env, a, ref, catalog.Keep{Records: format == "usf" || format == "ndjson"})
	if err != nil {
		return err
	}
	defer src.Close()
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.%s"`, a.Name, fileSafe(src.Session.ID), ext))
	if format == "html" {
		h.Set("Content-Security-Policy", exportPolicy)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	now := time.Now()
	switch format {
	case "usf":
		if src.Entries != nil {
			var records session.Records = src.Records
			err = session.EncodeStream(bw, src.Session, src.Entries, records, false)
		} else {
			err = session.Encode(bw, src.Session, false)
		}
	case "cusf":
		enc := cusf.NewEncoder(bw, cusf.Options{Exporter: "stead/" + s.Version, Now: func() time.Time { return now }})
		if src.Entries != nil {
			err = enc.EncodeStream(src.Session, src.Entries)
		} else {
			err = enc.Encode(src.Session)
		}
	case "ndjson":
		var names agenthistory.Names
		for _, a := range adapters.All {
			names.Add(a.Name, a.Agent, a.Aliases...)
		}
		hd := agenthistory.Header{ExportTimestamp: now, Homes: []string{"local"}, SessionCount: 1,
			AgentTypes: []string{names.Agent(a.Name)}}
		if p := src.Session.Project.Path; p != "" {
			hd.Workspaces = []string{p}
		}
		var aw *agenthistory.Writer
		if aw, err = agenthistory.NewWriter(bw, hd); err == nil {
			aw.Names = names
			if src.Entries != nil {
				err = aw.WriteStream(src.Session, src.Records, src.Entries)
			} else {
				err = aw.Write(src.Session)
			}
			if cerr := aw.Close(); err == nil {
				err = cerr
			}
		}
	case "html":
		err = writeHTML(bw, src, s.Version)
	}
	if err != nil {
		// The status is sent: the download ends short, and the log says why.
		s.log().Error("web: export failed", "ref", r.PathValue("ref"), "format", format, "err", err)
		return nil
	}
	return bw.Flush()
}

// exportFormats are the formats of an export: a file name's extension
// and a content type each.
var exportFormats = map[string][2]string{
	"usf":    {"json", "application/json"},
	"cusf":   {"cusf.jsonl", "application/x-ndjson"},
	"ndjson": {"ndjson", "application/x-ndjson"},
	"html":   {"html", "text/html; charset=utf-8"},
}

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

func fileSafe(s string) string {
	s = unsafeName().ReplaceAllString(s, "_")
	if s == "" {
		return "session"
	}
	return s
}

// writeHTML writes a session as one HTML page that reads offline: its
// styles inline, no script, every text of the session escaped (html/
// template), written one entry at a time.
func writeHTML(w io.Writer, src *catalog.Opened, version string) error {
	s := src.Session
	title := s.Title
	if title == "" {
		title = s.Source.CLI + ":" + s.ID
	}
	head := map[string]any{"Title": title, "Ref": s.Source.CLI + ":" + s.ID, "Project": s.Project.Path,
		"Model": s.Model.Model, "Start": fmtTime(s.Metadata.Created), "End": fmtTime(s.Metadata.LastModified),
		"Version": version, "Now": fmtTime(time.Now())}
	if t := s.Metadata.Tokens; t != nil {
		head["Tokens"] = fmt.Sprintf("%d in, %d out, %d cache read, %d cache write", t.Input, t.Output, t.CacheRead, t.CacheWrite)
	}
	if err := htmlPage().ExecuteTemplate(w, "head", head); err != nil {
		return err
	}
	var list session.Entries = session.EntriesOf(s.Timeline)
	if src.Entries != nil {
		list = src.Entries
	}
	for {
		e, err := list.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := htmlPage().ExecuteTemplate(w, "entry", htmlEntry(e)); err != nil {
			return err
		}
	}
	return htmlPage().ExecuteTemplate(w, "foot", head)
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// htmlEntry is what the page shows of an entry.
func htmlEntry(e *session.Entry) map[string]any {
	v := map[string]any{"Type": string(e.Type), "Kind": e.Kind, "Time": fmtTime(e.Timestamp), "ID": e.ID,
		"Model": e.Model, "Status": string(e.Status)}
	switch e.Type {
	case session.User, session.Assistant, session.System:
		v["Text"] = e.Content
		v["Thinking"] = e.Thinking
	case session.ToolCall:
		v["Tool"] = string(e.Tool)
		if e.OriginalTool != "" && e.OriginalTool != string(e.Tool) {
			v["Tool"] = string(e.Tool) + " (" + e.OriginalTool + ")"
		}
		var pretty strings.Builder
		var in any
		if json.Unmarshal(e.Input, &in) == nil {
			enc := json.NewEncoder(&pretty)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			enc.Encode(in)
		} else {
			pretty.Write(e.Input)
		}
		v["Input"] = strings.TrimSpace(pretty.String())
	case session.ToolResult:
		v["Output"] = e.Output
		v["Error"] = e.Error
		v["Failed"] = !e.Success
	}
	if e.Usage != nil {
		v["Usage"] = fmt.Sprintf("%d in · %d out", e.Usage.Input, e.Usage.Output)
	}
	return v
}

// htmlPage is the HTML export's template, parsed on first use: parsing
// it at start cost every stead command about 4 ms.
var htmlPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(htmlTemplate))
})

const htmlTemplate = `{{define "head"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2329;background:#fff}
h1{font-size:1.4rem;margin:0 0 .3rem}.meta{color:#5c636b;font-size:.85rem;margin-bottom:1.5rem}
.e{border:1px solid #dde1e6;border-radius:6px;margin:.6rem 0;padding:.5rem .8rem}
.e .h{font-size:.8rem;color:#5c636b;display:flex;gap:.8rem}.e .h b{color:#1d2329}
.user{background:#f2f6fd;border-color:#bcd3f5}.system{opacity:.75;border-style:dashed}
.failed{border-color:#d33;background:#fdf2f2}
pre{white-space:pre-wrap;word-break:break-word;background:#f5f6f8;padding:.5rem;border-radius:4px;font:13px/1.4 ui-monospace,monospace;margin:.3rem 0}
.text{white-space:pre-wrap;word-break:break-word}
@media (prefers-color-scheme:dark){body{background:#14161a;color:#d8dde3}.e{border-color:#333a44}.e .h b{color:#d8dde3}
.user{background:#1a2333;border-color:#2d4670}pre{background:#1d2127}.failed{background:#2a1717}}
</style></head><body>
<h1>{{.Title}}</h1>
<div class="meta">{{.Ref}}{{if .Project}} · {{.Project}}{{end}}{{if .Model}} · {{.Model}}{{end}}{{if .Start}} · {{.Start}} – {{.End}}{{end}}{{if .Tokens}} · {{.Tokens}}{{end}}</div>
{{end}}
{{define "entry"}}<div class="e {{.Type}}{{if .Failed}} failed{{end}}" id="{{.ID}}"><div class="h"><b>{{.Type}}{{if .Kind}} · {{.Kind}}{{end}}{{if .Tool}} · {{.Tool}}{{end}}</b>{{if .Status}}<span>{{.Status}}</span>{{end}}<span>{{.Time}}</span>{{if .Model}}<span>{{.Model}}</span>{{end}}{{if .Usage}}<span>{{.Usage}}</span>{{end}}</div>
{{if .Thinking}}<details><summary>Thinking</summary><div class="text">{{.Thinking}}</div></details>{{end}}
{{if eq .Type "system"}}<details><summary>{{if .Kind}}{{.Kind}}{{else}}system{{end}}</summary><div class="text">{{.Text}}</div></details>{{else if .Text}}<div class="text">{{.Text}}</div>{{end}}
{{if .Input}}<pre>{{.Input}}</pre>{{end}}
{{if .Output}}<details{{if .Failed}} open{{end}}><summary>Output</summary><pre>{{.Output}}</pre></details>{{end}}
{{if .Error}}<pre>{{.Error}}</pre>{{end}}
</div>
{{end}}
{{define "foot"}}<p class="meta">Exported by stead {{.Version}} on {{.Now}}.</p></body></html>
{{end}}`
