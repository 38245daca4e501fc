package main

import (
	"bytes"
	"fmt"
	"html/template"
	"time"

	"github.com/stead-dev/stead/internal/atomicfile"
	"github.com/stead-dev/stead/runs"
)

// chart is one horizontal bar chart of the comparison page: a figure per
// variant, drawn to scale as SVG.
type chart struct {
	Title  string
	Height int
	Bars   []bar
}

type bar struct {
	Name, Label string
	Y, Width    int
}

const chartWidth = 360 // the longest bar, in pixels

func newChart(title string, ab *runs.AB, value func(v runs.Variant) float64, label func(v runs.Variant) string) chart {
	c := chart{Title: title, Height: 24*len(ab.Variants) + 8}
	most := 0.0
	for _, v := range ab.Variants {
		most = max(most, value(v))
	}
	for i, v := range ab.Variants {
		w := 0
		if most > 0 {
			w = int(value(v) / most * chartWidth)
		}
		c.Bars = append(c.Bars, bar{Name: v.Name, Label: label(v), Y: 4 + 24*i, Width: max(w, 1)})
	}
	return c
}

// writeABHTML writes the comparison as a self-contained web page: no
// script, no request elsewhere; every text from the sessions is escaped.
func writeABHTML(path string, ab *runs.AB) error {
	charts := []chart{
		newChart("Duration", ab, func(v runs.Variant) float64 { return v.Took.Seconds() },
			func(v runs.Variant) string { return v.Took.Round(100 * time.Millisecond).String() }),
		newChart("Tokens in", ab, func(v runs.Variant) float64 { return float64(v.Tokens.Input) },
			func(v runs.Variant) string { return fmt.Sprint(v.Tokens.Input) }),
		newChart("Tokens out", ab, func(v runs.Variant) float64 { return float64(v.Tokens.Output) },
			func(v runs.Variant) string { return fmt.Sprint(v.Tokens.Output) }),
		newChart("Cost", ab, func(v runs.Variant) float64 {
			if v.Cost == nil {
				return 0
			}
			return *v.Cost
		}, func(v runs.Variant) string {
			if v.Cost == nil {
				return "unknown"
			}
			return fmt.Sprintf("$%.4f", *v.Cost)
		}),
		newChart("Tool calls", ab, func(v runs.Variant) float64 { return float64(sum(v.Tools)) },
			func(v runs.Variant) string { return fmt.Sprint(sum(v.Tools)) }),
		newChart("Lines changed", ab, func(v runs.Variant) float64 { return float64(v.Changes.Insertions + v.Changes.Deletions) },
			func(v runs.Variant) string {
				return fmt.Sprintf("%d files, +%d/-%d", v.Changes.Files, v.Changes.Insertions, v.Changes.Deletions)
			}),
	}
	var buf bytes.Buffer
	if err := abPage.Execute(&buf, map[string]any{"AB": ab, "Charts": charts, "Width": chartWidth + 220}); err != nil {
		return err
	}
	return atomicfile.Write(path, buf.Bytes(), 0o600)
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

var abPage = template.Must(template.New("ab").Funcs(template.FuncMap{
	"round": func(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) },
	"cost": func(c *float64) string {
		if c == nil {
			return "unknown"
		}
		return fmt.Sprintf("$%.4f", *c)
	},
	"tools": toolList,
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stead A/B {{.AB.ID}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.charts{display:flex;flex-wrap:wrap;gap:1.5em}.chart h3{font-size:1em;margin:.2em 0}
.answers{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:1em}
.answer{border:1px solid #ccc;padding:.6em;white-space:pre-wrap;overflow-wrap:anywhere}
.failed{color:#b00}pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:30em}
svg text{font:12px system-ui,sans-serif}
</style></head><body>
<h1>A/B run {{.AB.ID}}</h1>
<p>Prompt: <q id="prompt">{{.AB.Prompt}}</q><br>Project: <code>{{.AB.Project}}</code>{{if .AB.From}}; from <code>{{.AB.From}}</code>{{end}}; started {{.AB.Started.Format "2006-01-02 15:04:05 MST"}}.</p>
<table id="summary"><tr><th>variant</th><th>state</th><th>time</th><th>tokens in</th><th>out</th><th>cache</th><th>cost</th><th>tool calls</th><th>errors</th><th>files</th><th>lines</th></tr>
{{range .AB.Variants}}<tr class="variant{{if .Error}} failed{{end}}" data-variant="{{.Name}}"><td>{{.Name}}</td><td>{{.State}}</td><td>{{round .Took}}</td><td>{{.Tokens.Input}}</td><td>{{.Tokens.Output}}</td><td>{{.Tokens.CacheRead}}</td><td>{{cost .Cost}}</td><td>{{tools .Tools}}</td><td>{{len .Errors}}</td><td>{{.Changes.Files}}</td><td>+{{.Changes.Insertions}}/-{{.Changes.Deletions}}</td></tr>
{{end}}</table>
<h2>Charts</h2><div class="charts">
{{range .Charts}}<div class="chart"><h3>{{.Title}}</h3>
<svg class="bars" width="{{$.Width}}" height="{{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Bars}}<text x="0" y="{{.Y}}" dy="14">{{.Name}}</text><rect x="100" y="{{.Y}}" width="{{.Width}}" height="18" fill="#4a7bd0"></rect><text x="{{.Width}}" dx="106" y="{{.Y}}" dy="14">{{.Label}}</text>
{{end}}</svg></div>
{{end}}</div>
<h2>Answers</h2><div class="answers">
{{range .AB.Variants}}<div class="answer" data-variant="{{.Name}}"><strong>{{.Name}}</strong>{{if .Error}} <span class="failed">{{.Error}}</span>{{end}}
{{.Answer}}</div>
{{end}}</div>
<h2>Changes</h2>
{{range .AB.Variants}}<details{{if .Changes.Files}} open{{end}}><summary>{{.Name}}: {{.Changes.Files}} files, +{{.Changes.Insertions}}/-{{.Changes.Deletions}}</summary><pre>{{.Changes.Diff}}</pre></details>
{{end}}
{{range .AB.Variants}}{{if .Errors}}<h2>Errors of {{.Name}}</h2><ul>{{range .Errors}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}
</body></html>
`))
