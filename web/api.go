package web

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/catalog"
	"github.com/stead-dev/stead/index"
	"github.com/stead-dev/stead/pricing"
	"github.com/stead-dev/stead/session"
)

// MaxPage is the most entries or hits one request returns.
const MaxPage = 1000

func (s *Server) info(w http.ResponseWriter, r *http.Request) error {
	clis := []map[string]any{}
	for _, a := range adapters.All {
		clis = append(clis, map[string]any{"name": a.Name, "title": a.Title, "reads": a.Reads(), "runs": a.Runs()})
	}
	return writeJSON(w, map[string]any{
		"version": s.Version, "host": s.hostname(), "readOnly": s.ReadOnly,
		"runs": s.Supervisor != nil, "clis": clis,
	})
}

func (s *Server) hostname() string {
	if s.Host != "" {
		return s.Host
	}
	h, _ := os.Hostname()
	return h
}

// sessionJSON is one session in GET /api/v1/sessions.
type sessionJSON struct {
	Ref        string               `json:"ref"`
	CLI        string               `json:"cli"`
	ID         string               `json:"id"`
	Host       string               `json:"host"`
	Project    string               `json:"project"`
	Title      string               `json:"title"`
	Start      *string              `json:"start"`
	End        *string              `json:"end"`
	Messages   int                  `json:"messages"`
	Turns      int                  `json:"turns"`
	Size       int64                `json:"size"`
	Models     []string             `json:"models"`
	Tokens     int64                `json:"tokens"`
	Cost       *float64             `json:"cost"`
	ToolCalls  int                  `json:"toolCalls"`
	ToolErrors int                  `json:"toolErrors"`
	Parent     *session.Link        `json:"parent,omitempty"`
	History    *session.History     `json:"history,omitempty"`
	Usage      session.Usage        `json:"usage"`
	Tools      map[session.Tool]int `json:"tools,omitempty"`
}

// sessions answers GET /api/v1/sessions: the sessions list shows,
// filtered, sorted and paged.
func (s *Server) sessions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	filter := catalog.Filter{Project: q.Get("project"), Subagents: q.Get("subagents") == "true"}
	var err error
	if filter.Since, err = parseWhen(q.Get("since"), false); err != nil {
		return errorf(http.StatusBadRequest, "since: %v", err)
	}
	if filter.Until, err = parseWhen(q.Get("until"), true); err != nil {
		return errorf(http.StatusBadRequest, "until: %v", err)
	}
	clis, err := cliList(q.Get("cli"))
	if err != nil {
		return err
	}
	offset, limit, err := page(q, 0)
	if err != nil {
		return err
	}
	order, desc, err := sortOrder(q.Get("sort"))
	if err != nil {
		return err
	}
	model, errorsOnly, text := q.Get("model"), q.Get("errors") == "true", strings.ToLower(q.Get("q"))
	res, err := s.scan(r.Context(), clis)
	if err != nil {
		return err
	}
	host := s.hostname()
	prices := s.prices()
	var out []sessionJSON
	for i := range res.Summaries {
		sum := &res.Summaries[i]
		if !filter.Keep(sum) || errorsOnly && sum.ToolErrors == 0 {
			continue
		}
		if model != "" && !hasModel(sum, model) {
			continue
		}
		if text != "" && !strings.Contains(strings.ToLower(sum.Title), text) &&
			!strings.Contains(strings.ToLower(sum.Project), text) && !strings.HasPrefix(strings.ToLower(sum.ID), text) {
			continue
		}
		out = append(out, summaryJSON(sum, host, prices))
	}
	if order != nil {
		slices.SortStableFunc(out, func(a, b sessionJSON) int {
			c := order(&a, &b)
			if desc {
				return -c
			}
			return c
		})
	}
	total := len(out)
	out = out[min(offset, total):]
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	if out == nil {
		out = []sessionJSON{}
	}
	warns := res.Warnings
	if warns == nil {
		warns = []session.Warning{}
	}
	return writeJSON(w, map[string]any{"sessions": out, "total": total, "offset": offset, "warnings": warns})
}

func hasModel(sum *session.Summary, model string) bool {
	for m := range sum.Models {
		if strings.Contains(m, model) {
			return true
		}
	}
	return false
}

func summaryJSON(sum *session.Summary, host string, prices *pricing.Table) sessionJSON {
	j := sessionJSON{
		Ref: sum.CLI + ":" + sum.ID, CLI: sum.CLI, ID: sum.ID, Host: host, Project: sum.Project, Title: sum.Title,
		Start: jsonTime(sum.Start), End: jsonTime(sum.End), Messages: sum.Messages, Turns: sum.Turns, Size: sum.Size,
		Models: session.ModelNames(sum.Models), ToolErrors: sum.ToolErrors, Parent: sum.Parent, History: sum.History,
		Usage: sum.Usage, Tools: sum.Tools,
	}
	u := sum.Usage
	j.Tokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	for _, n := range sum.Tools {
		j.ToolCalls += n
	}
	if j.Models == nil {
		j.Models = []string{}
	}
	if cost, ok := prices.Total(sum.Models); ok {
		j.Cost = &cost
	}
	return j
}

// sortOrder reads sort=[-]field; nil keeps the scan's order (newest
// first).
func sortOrder(v string) (func(a, b *sessionJSON) int, bool, error) {
	desc := strings.HasPrefix(v, "-")
	field := strings.TrimPrefix(v, "-")
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	switch field {
	case "":
		return nil, false, nil
	case "start":
		return func(a, b *sessionJSON) int { return cmp.Compare(str(a.Start), str(b.Start)) }, desc, nil
	case "end":
		return func(a, b *sessionJSON) int { return cmp.Compare(str(a.End), str(b.End)) }, desc, nil
	case "cli":
		return func(a, b *sessionJSON) int { return cmp.Compare(a.CLI, b.CLI) }, desc, nil
	case "project":
		return func(a, b *sessionJSON) int { return cmp.Compare(a.Project, b.Project) }, desc, nil
	case "title":
		return func(a, b *sessionJSON) int { return cmp.Compare(a.Title, b.Title) }, desc, nil
	case "messages":
		return func(a, b *sessionJSON) int { return cmp.Compare(a.Messages, b.Messages) }, desc, nil
	case "size":
		return func(a, b *sessionJSON) int { return cmp.Compare(a.Size, b.Size) }, desc, nil
	case "tokens":
		return func(a, b *sessionJSON) int { return cmp.Compare(a.Tokens, b.Tokens) }, desc, nil
	case "errors":
		return func(a, b *sessionJSON) int { return cmp.Compare(a.ToolErrors, b.ToolErrors) }, desc, nil
	}
	return nil, false, errorf(http.StatusBadRequest, "sort: %q is not one of start, end, cli, project, title, messages, size, tokens, errors (with - for descending)", v)
}

// scan summarises every session of clis, from the search index where it
// holds them as they are, else by reading them. While a watcher keeps the
// index fresh (the daemon's) and the index has not changed since the last
// scan, that scan's result is the answer: nothing is read again.
func (s *Server) scan(ctx context.Context, clis []string) (*catalog.Result, error) {
	opts := catalog.Options{Env: s.Env, CLIs: clis, Detail: session.DetailFull, Logger: s.Logger}
	ix, err := index.OpenMade(ctx, index.DefaultPath(s.Env), s.Logger)
	if err != nil {
		if !errors.Is(err, index.ErrNoIndex) {
			s.log().Debug("web: the search index cannot be opened; scanning", "err", err)
		}
		return catalog.Scan(ctx, opts)
	}
	defer ix.Close()
	key := strings.Join(clis, ",")
	gen := int64(-1)
	if _, c, err := ix.Cache(ctx, s.Env, session.DetailList); err == nil && c.Watched() {
		// The watcher read what changed before it answered.
		if gen, err = ix.Generation(ctx); err != nil {
			gen = -1
		}
	}
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if gen >= 0 && last != nil && last.gen == gen && last.clis == key {
		return last.res, nil
	}
	if env, cache, err := ix.Cache(ctx, s.Env, session.DetailFull); err == nil {
		opts.Env, opts.Cache = env, cache
	}
	res, err := catalog.Scan(ctx, opts)
	if err == nil && gen >= 0 {
		s.mu.Lock()
		s.last = &scanned{clis: key, gen: gen, res: res}
		s.mu.Unlock()
	}
	return res, err
}

// scanned is a scan's result, kept while the index it came from does not
// change. It is shared: nothing changes it.
type scanned struct {
	clis string
	gen  int64
	res  *catalog.Result
}

func (s *Server) prices() *pricing.Table {
	if s.Prices != nil {
		return s.Prices
	}
	return pricing.Default()
}

// validID is what a session id in the API may be: the ids every CLI
// gives, never a path.
var validID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._:@+-]{0,199}$`) })

// resolve finds the session a <cli>:<id> reference names in the
// server's stores. Unlike the commands, the API never takes a path: a
// request names a session, not a file.
func (s *Server) resolve(ref string) (adapters.Adapter, session.Ref, error) {
	name, id, ok := strings.Cut(ref, ":")
	a, known := adapters.Lookup(name)
	if !ok || !known || !validID().MatchString(id) {
		return a, session.Ref{}, errorf(http.StatusBadRequest, "%q is not a session reference (<cli>:<id>)", ref)
	}
	return catalog.Resolve(s.Env, name+":"+id, "")
}

// session answers GET /api/v1/sessions/{ref}: the universal session,
// its entries paged.
func (s *Server) session(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	offset, limit, err := page(q, 200)
	if err != nil {
		return err
	}
	native := q.Get("native") == "true"
	full := q.Get("full") == "true"
	a, ref, err := s.resolve(r.PathValue("ref"))
	if err != nil {
		return err
	}
	if offset == 0 && !q.Has("at") {
		if body, ok, err := firstPage(a, ref, limit, native); ok || err != nil {
			if err != nil {
				return err
			}
			entries := body["entries"].([]*session.Entry)
			body["costs"] = s.costs(entries)
			body["entries"] = pageEntries(entries, full)
			return writeJSON(w, body)
		}
	}
	src, err := catalog.Open(s.Env, a, ref, catalog.Keep{IDs: true})
	if err != nil {
		return err
	}
	defer src.Close()
	meta := *src.Session
	var ids []string
	var total int
	var list session.Entries
	if src.Entries != nil {
		ids, total, list = src.Entries.IDs(), src.Entries.Len(), src.Entries
	} else {
		tl := meta.Timeline
		total, list = len(tl), session.EntriesOf(tl)
		ids = make([]string, len(tl))
		for i := range tl {
			ids[i] = tl[i].ID
		}
	}
	at := -1
	if id := q.Get("at"); id != "" {
		at = slices.Index(ids, id)
		if at < 0 {
			return errorf(http.StatusNotFound, "no entry %q in %s", id, ref.ID)
		}
		if !q.Has("offset") {
			offset = max(0, at-limit/4)
		}
	}
	entries := make([]*session.Entry, 0, min(limit, max(0, total-offset)))
	for i := 0; i < offset+limit; i++ {
		e, err := list.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if i < offset {
			continue
		}
		c := *e
		if !native {
			c.Native = nil
		}
		entries = append(entries, &c)
	}
	meta.Timeline, meta.Records = nil, nil
	body := map[string]any{"session": meta, "ref": a.Name + ":" + meta.ID, "entries": pageEntries(entries, full),
		"offset": offset, "total": total, "costs": s.costs(entries)}
	if at >= 0 {
		body["at"] = at
	}
	if offset+len(entries) < total {
		body["next"] = offset + len(entries)
	}
	return writeJSON(w, body)
}

// firstPage answers the first page of a large session file of a CLI whose
// files hold their whole conversation (catalog.TwoPassAbove and more) from
// its first records alone: a session page opens without the file being
// read to its end. The page's entries are as a full read makes them (a
// Builder over the records read, which go on a while past the page so
// that the results and usage of its entries are there); the session's
// total entries are not known ("total" is absent, "next" set). It reports
// false for any other session.
func firstPage(a adapters.Adapter, ref session.Ref, limit int, native bool) (map[string]any, bool, error) {
	if a.NewDecoder == nil || a.StreamDecoder == nil || ref.Path == "" {
		return nil, false, nil
	}
	f, err := os.Open(ref.Path)
	if err != nil {
		return nil, false, nil // the full read says why
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() <= catalog.TwoPassAbove {
		return nil, false, nil
	}
	dec := a.NewDecoder(bufio.NewReaderSize(f, 256<<10))
	b := session.NewBuilder(a.Name, ref.Path)
	// Records past the page's last entry are read until as many entries
	// again have come: what completes the page's entries comes soon after
	// them.
	n := 0
	for n < 2*limit+64 {
		ev, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			// The whole file was read: the usual read answers exactly.
			return nil, false, nil
		}
		if err != nil {
			return nil, false, nil
		}
		b.Add(ev)
		n += len(ev.Entries)
	}
	s := b.Session()
	if s.ID == "" {
		s.ID = ref.ID
	}
	entries := s.Timeline[:min(limit, len(s.Timeline))]
	page := make([]*session.Entry, len(entries))
	for i := range entries {
		if !native {
			entries[i].Native = nil
		}
		page[i] = &entries[i]
	}
	s.Timeline, s.Records = nil, nil
	return map[string]any{"session": s, "ref": a.Name + ":" + s.ID, "entries": page, "offset": 0,
		"next": len(page), "partial": true}, true, nil
}

// costs prices the model responses among entries at list prices: the
// cost of each entry that carries its response's usage, by entry id (no
// entry for an unknown model).
func (s *Server) costs(entries []*session.Entry) map[string]float64 {
	out := map[string]float64{}
	prices := s.prices()
	for _, e := range entries {
		if e.Usage == nil || e.Model == "" {
			continue
		}
		if c, ok := prices.Cost(e.Model, *e.Usage); ok {
			out[e.ID] = c
		}
	}
	return out
}

var roles = []string{"user", "assistant", "thinking", "tool_call", "tool_result"}

// search answers GET /api/v1/search from the search index, brought up
// to date first (cheap when the daemon keeps it fresh).
func (s *Server) search(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	text := q.Get("q")
	if strings.TrimSpace(text) == "" {
		return errorf(http.StatusBadRequest, "q: give something to search for")
	}
	if _, err := index.ParseQuery(text); err != nil {
		return errorf(http.StatusBadRequest, "q: %v", err)
	}
	clis, err := cliList(q.Get("cli"))
	if err != nil {
		return err
	}
	_, limit, err := page(q, 50)
	if err != nil {
		return err
	}
	query := index.Query{Text: text, CLIs: clis, Project: q.Get("project"), Tool: q.Get("tool"), Limit: limit}
	for _, role := range splitList(q.Get("role")) {
		if !slices.Contains(roles, role) {
			return errorf(http.StatusBadRequest, "role: %q is not one of %s", role, strings.Join(roles, ", "))
		}
		query.Roles = append(query.Roles, role)
	}
	if query.Since, err = parseWhen(q.Get("since"), false); err != nil {
		return errorf(http.StatusBadRequest, "since: %v", err)
	}
	if query.Until, err = parseWhen(q.Get("until"), true); err != nil {
		return errorf(http.StatusBadRequest, "until: %v", err)
	}
	if ref := q.Get("session"); ref != "" {
		_, sr, err := s.resolve(ref)
		if err != nil {
			return err
		}
		query.SessionCLI, query.SessionID = sr.CLI, sr.ID
	}
	ix, err := index.Open(r.Context(), index.DefaultPath(s.Env), s.Logger)
	if err != nil {
		return err
	}
	defer ix.Close()
	hits, res, err := ix.SearchFresh(r.Context(), s.Env, query, nil)
	if err != nil {
		return err
	}
	type hitJSON struct {
		index.Hit
		Ref string `json:"ref"`
	}
	out := make([]hitJSON, len(hits))
	for i, h := range hits {
		out[i] = hitJSON{Hit: h, Ref: h.Ref()}
	}
	warns := res.Warnings
	if warns == nil {
		warns = []session.Warning{}
	}
	return writeJSON(w, map[string]any{"query": text, "hits": out, "mark": index.Mark, "endMark": index.EndMark,
		"warnings": warns})
}

// page reads offset and limit (limit: def when absent, at most MaxPage
// when def is set; 0 and absent mean all when def is 0).
func page(q map[string][]string, def int) (offset, limit int, err error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if v := get("offset"); v != "" {
		if offset, err = strconv.Atoi(v); err != nil || offset < 0 {
			return 0, 0, errorf(http.StatusBadRequest, "offset: %q is not a number of 0 or more", v)
		}
	}
	limit = def
	if v := get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 0 {
			return 0, 0, errorf(http.StatusBadRequest, "limit: %q is not a number of 0 or more", v)
		}
	}
	if def > 0 && (limit == 0 || limit > MaxPage) {
		limit = min(max(limit, def), MaxPage)
	}
	return offset, limit, nil
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func cliList(v string) ([]string, error) {
	clis := splitList(v)
	for _, c := range clis {
		if _, ok := adapters.Lookup(c); !ok {
			return nil, errorf(http.StatusBadRequest, "cli: unknown CLI %q (%s)", c, strings.Join(adapters.Names(), ", "))
		}
	}
	return clis, nil
}

// parseWhen reads a date (an upper bound: the end of that day) or an
// RFC 3339 time.
func parseWhen(v string, end bool) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	t, err := time.ParseInLocation("2006-01-02", v, time.Local)
	if err != nil {
		return time.Time{}, errorf(http.StatusBadRequest, "%q is not a date (2026-11-01) or an RFC 3339 time", v)
	}
	if end {
		t = t.Add(24*time.Hour - time.Nanosecond)
	}
	return t, nil
}

func jsonTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := session.FormatTime(t)
	return &s
}

// usageRowJSON is one group of GET /api/v1/usage.
type usageRowJSON struct {
	Period   string        `json:"period"`
	Key      string        `json:"key"`
	Tokens   session.Usage `json:"tokens"`
	Total    int64         `json:"total"`
	Cost     *float64      `json:"cost"`
	Sessions int           `json:"sessions"`
}

// usage answers GET /api/v1/usage: tokens and cost by day, week or month
// (in the server's time zone), split by CLI, model or project, from the
// same summaries as stead stats --by.
func (s *Server) usage(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	opts := catalog.UsageOptions{Location: time.Local, Now: time.Now()}
	by := cmp.Or(q.Get("by"), "day")
	switch by {
	case "day":
		opts.Period = catalog.Day
	case "week":
		opts.Period = catalog.Week
	case "month":
		opts.Period = catalog.Month
	default:
		return errorf(http.StatusBadRequest, "by: %q is not one of day, week, month", by)
	}
	split := cmp.Or(q.Get("split"), "model")
	switch split {
	case "cli":
		opts.ByCLI = true
	case "model":
		opts.ByModel = true
	case "project":
		opts.ByProject = true
	default:
		return errorf(http.StatusBadRequest, "split: %q is not one of cli, model, project", split)
	}
	var err error
	if opts.Since, err = parseWhen(q.Get("since"), false); err != nil {
		return errorf(http.StatusBadRequest, "since: %v", err)
	}
	if opts.Until, err = parseWhen(q.Get("until"), true); err != nil {
		return errorf(http.StatusBadRequest, "until: %v", err)
	}
	clis, err := cliList(q.Get("cli"))
	if err != nil {
		return err
	}
	res, err := s.scan(r.Context(), clis)
	if err != nil {
		return err
	}
	// Responses are kept by when they were made, not by their session's
	// times (as stead stats --by does).
	keep := catalog.Filter{Project: q.Get("project"), Subagents: true}
	var sums []session.Summary
	for i := range res.Summaries {
		if keep.Keep(&res.Summaries[i]) {
			sums = append(sums, res.Summaries[i])
		}
	}
	rep := catalog.UsageOver(sums, opts)
	prices := s.prices()
	rows := make([]usageRowJSON, 0, len(rep.Groups))
	for _, g := range rep.Groups {
		row := usageRowJSON{Period: g.Start.In(time.Local).Format("2006-01-02"), Key: g.CLI + g.Model + g.Project,
			Tokens: g.Usage, Sessions: g.Sessions}
		row.Total = g.Usage.Input + g.Usage.Output + g.Usage.CacheRead + g.Usage.CacheWrite
		if cost, ok := prices.Total(g.Models); ok {
			row.Cost = &cost
		}
		rows = append(rows, row)
	}
	return writeJSON(w, map[string]any{"by": by, "split": split, "timeZone": zoneName(), "rows": rows})
}

// zoneName names the server's time zone: its IANA name when $TZ gives
// one, else its abbreviation (UTC, CET).
func zoneName() string {
	if tz := os.Getenv("TZ"); tz != "" && !strings.HasPrefix(tz, ":") {
		return tz
	}
	name, _ := time.Now().Zone()
	return name
}
