package kimi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stead-dev/stead/adapters/internal/ids"
	"github.com/stead-dev/stead/adapters/internal/storefile"
	"github.com/stead-dev/stead/session"
)

// FormatLegacy is the Target.Format of the legacy kimi-cli's store; an
// empty Format is Kimi Code's.
const FormatLegacy = "legacy"

// now is the clock of the times a placement records (state.json's
// updatedAt, the index marker's name); tests set it.
var now = time.Now

// Place chooses a new session's id (when t.ID is empty) and where it goes:
// Kimi Code's store by default, the legacy kimi-cli's when t.Format is
// "legacy". t.Dir becomes the physical path, which both CLIs record as
// the working directory (process.cwd(), Path.cwd()) and compare on
// resume.
//
// Kimi Code (kimi.md §3.10): the session is
// sessions/wd_<slug>_<hash>/session_<uuid>/ under $KIMI_CODE_HOME, its
// journal agents/main/wire.jsonl (the placement's Path) and its state.json
// (a placement File: id, cwd, times, title, the main agent, and the
// session's provenance in state.json's custom object, which Kimi Code
// keeps). Resuming by id scans the buckets for the folder, so
// session_index.jsonl, an index the v2 engine does not need, is left
// alone; an empty marker in sessions/.index-dirty/ tells a running Kimi
// Code to rescan it, as Kimi Code does itself.
//
// kimi-cli (kimi.md §2.10): the session is sessions/<md5(dir)>/<uuid>/
// under $KIMI_SHARE_DIR (~/.kimi), its event log wire.jsonl (the Path),
// its context.jsonl (the encoder's File) and its state.json. kimi-cli
// finds a session only through kimi.json's entry for the directory, and
// without one it starts a new session of that id, truncating the
// context: kimi.json is created when it does not exist, and when it
// exists without the directory (stead never changes it) Place fails.
func Place(env session.Env, t *session.Target) (session.Placement, error) {
	if !filepath.IsAbs(t.Dir) {
		return session.Placement{}, fmt.Errorf("kimi: project directory %q is not absolute", t.Dir)
	}
	t.Dir = filepath.Clean(t.Dir)
	if real, err := filepath.EvalSymlinks(t.Dir); err == nil {
		t.Dir = real
	}
	// The model the session continues with, for the report: Kimi binds
	// its configured (or -m) model on resume; the llm.request records
	// written are history.
	if t.Model == "" {
		t.Model, t.ModelFrom = ConfiguredModel(env)
	}
	t.Provider = session.ProviderOf(t.Model)
	switch t.Format {
	case "":
		return placeCode(env, t)
	case FormatLegacy:
		return placeLegacy(env, t)
	}
	return session.Placement{}, fmt.Errorf("kimi: unknown format %q (want %q for kimi-cli, or none for Kimi Code)", t.Format, FormatLegacy)
}

func placeCode(env session.Env, t *session.Target) (session.Placement, error) {
	if t.ID == "" {
		t.ID = "session_" + ids.UUID4()
	}
	if !validName(t.ID) {
		return session.Placement{}, fmt.Errorf("kimi: invalid session id %q (Kimi Code takes [A-Za-z0-9._-])", t.ID)
	}
	root := Root(env)
	if root == "" {
		return session.Placement{}, errors.New("kimi: no home directory (set KIMI_CODE_HOME or HOME)")
	}
	dir := filepath.Join(root, "sessions", WorkDirKey(t.Dir), t.ID)
	if _, err := os.Lstat(dir); err == nil {
		return session.Placement{}, fmt.Errorf("kimi: session folder %s exists already", dir)
	}
	state, err := codeStateFile(t, dir)
	if err != nil {
		return session.Placement{}, err
	}
	at := now()
	return session.Placement{
		Root: root,
		Path: filepath.Join(dir, "agents", "main", "wire.jsonl"),
		Files: []session.File{
			{Path: filepath.Join(dir, "state.json"), Data: state},
			{Path: filepath.Join(root, "sessions", ".index-dirty", t.ID+"."+strconv.FormatInt(at.UnixMilli(), 10))},
		},
		Resume: []string{"kimi", "-r", t.ID},
	}, nil
}

// codeStateFile returns the state.json of a new Kimi Code session in dir
// (kimi.md §3.4, v2 shape). Kimi Code updates its times, last prompt and
// title itself as the session goes on.
func codeStateFile(t *session.Target, dir string) ([]byte, error) {
	created := t.Created.UnixMilli()
	updated := max(now().UnixMilli(), created)
	st := struct {
		ID             string         `json:"id"`
		Version        int            `json:"version"`
		Cwd            string         `json:"cwd"`
		CreatedAt      int64          `json:"createdAt"`
		UpdatedAt      int64          `json:"updatedAt"`
		Archived       bool           `json:"archived"`
		Title          string         `json:"title,omitempty"`
		TitleKind      string         `json:"titleKind,omitempty"`
		Agents         map[string]any `json:"agents"`
		Custom         map[string]any `json:"custom"`
		LastTurnReason string         `json:"lastTurnReason"`
		IsCustomTitle  bool           `json:"isCustomTitle"`
	}{
		ID: t.ID, Version: 2, Cwd: t.Dir, CreatedAt: created, UpdatedAt: updated,
		Agents:         map[string]any{"main": map[string]any{"homedir": filepath.Join(dir, "agents", "main"), "type": "main"}},
		Custom:         map[string]any{"stead_origin": provenance(t.Origin)},
		LastTurnReason: "completed",
	}
	if t.Title != "" {
		st.Title, st.TitleKind, st.IsCustomTitle = t.Title, "custom", true
	}
	return session.MarshalCompact(st)
}

// provenance is what a written session records of its source.
func provenance(o session.Origin) map[string]any {
	m := map[string]any{"cli": o.CLI, "id": o.ID}
	if o.Tool != "" {
		m["tool"] = o.Tool
	}
	if !o.Written.IsZero() {
		// The records timed at or before it are the source's history
		// (summaries count their usage with the source).
		m["written"] = o.Written.UTC().Format(time.RFC3339Nano)
	}
	return m
}

func placeLegacy(env session.Env, t *session.Target) (session.Placement, error) {
	if t.ID == "" {
		t.ID = ids.UUID4()
	}
	if !validName(t.ID) {
		return session.Placement{}, fmt.Errorf("kimi: invalid session id %q (kimi-cli takes [A-Za-z0-9._-])", t.ID)
	}
	root := LegacyRoot(env)
	if root == "" {
		return session.Placement{}, errors.New("kimi: no home directory (set KIMI_SHARE_DIR or HOME)")
	}
	dir := filepath.Join(root, "sessions", LegacyBucket(t.Dir, "local"), t.ID)
	if _, err := os.Lstat(dir); err == nil {
		return session.Placement{}, fmt.Errorf("kimi: session folder %s exists already", dir)
	}
	p := session.Placement{
		Root:   root,
		Path:   filepath.Join(dir, "wire.jsonl"),
		Resume: []string{"kimi", "-r", t.ID},
	}
	index := filepath.Join(root, "kimi.json")
	switch listed, err := legacyListed(index, t.Dir); {
	case errors.Is(err, os.ErrNotExist):
		data, err := marshalIndent(obj{{"work_dirs", []any{obj{{"path", t.Dir}, {"kaos", "local"}, {"last_session_id", t.ID}}}}})
		if err != nil {
			return session.Placement{}, err
		}
		p.Files = append(p.Files, session.File{Path: index, Data: data})
	case err != nil:
		return session.Placement{}, fmt.Errorf("kimi: reading kimi-cli's index: %w", err)
	case !listed:
		return session.Placement{}, fmt.Errorf("kimi: %s does not list %s, and stead does not change it: "+
			"kimi-cli would start the session afresh and truncate its context; run kimi once in that directory, then convert again", index, t.Dir)
	}
	state := obj{{"version", 1}}
	if t.Title != "" {
		state = append(state, kv{"custom_title", t.Title})
	}
	data, err := marshalIndent(state)
	if err != nil {
		return session.Placement{}, err
	}
	p.Files = append(p.Files, session.File{Path: filepath.Join(dir, "state.json"), Data: data})
	return p, nil
}

// legacyListed reports whether kimi-cli's index at path lists dir as a
// local work dir (kimi.md §2.2).
func legacyListed(path, dir string) (bool, error) {
	b, err := storefile.ReadFile(path)
	if err != nil {
		return false, err
	}
	var idx struct {
		WorkDirs []struct {
			Path string `json:"path"`
			Kaos string `json:"kaos"`
		} `json:"work_dirs"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	for _, w := range idx.WorkDirs {
		if w.Path == dir && (w.Kaos == "" || w.Kaos == "local") {
			return true, nil
		}
	}
	return false, nil
}

// marshalIndent encodes v as kimi-cli writes its JSON documents
// (json.dump(indent=2, ensure_ascii=False)).
func marshalIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
