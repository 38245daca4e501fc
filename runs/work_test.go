package runs

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stead-dev/stead/bus"
)

// workRequestOf is the request Detach sends for spec.
func workRequestOf(t testing.TB, spec Spec) []byte {
	t.Helper()
	spec.Source = HistoryObject(spec.ID)
	b, err := json.Marshal(WorkRequest{V: WorkVersion, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseWorkRequest(t *testing.T) {
	good := Spec{ID: NewID(), To: "claude", Dir: "/home/dev/proj", Prompt: "carry on", Model: "claude-opus-4-1", Auto: true}
	spec, err := ParseWorkRequest(workRequestOf(t, good))
	good.Source = HistoryObject(good.ID)
	if err != nil || !reflect.DeepEqual(spec, good) {
		t.Fatalf("ParseWorkRequest of Detach's request = %+v, %v; want %+v", spec, err, good)
	}
	for _, tc := range []struct {
		name, data, want string
	}{
		{"not JSON", `{"spec":`, "bad work request: "},
		{"no version", `{"spec":{"id":"r1","to":"codex","dir":"/p","source":"source-r1"}}`, "it has no version"},
		{"a later version", `{"v":2,"spec":{"id":"r1","to":"codex","dir":"/p","source":"source-r1"}}`, "version 2; this worker speaks version 1"},
		{"no id", `{"v":1,"spec":{"to":"claude","dir":"/p","source":"source-"}}`, `bad run id ""`},
		{"id not a subject token", `{"v":1,"spec":{"id":"a.>","to":"claude","dir":"/p","source":"source-a.>"}}`, `bad run id "a.>"`},
		{"unknown CLI", `{"v":1,"spec":{"id":"r1","to":"emacs","dir":"/p","source":"source-r1"}}`, `to: unknown CLI "emacs"`},
		{"relative dir", `{"v":1,"spec":{"id":"r1","to":"codex","dir":"proj","source":"source-r1"}}`, `dir "proj" is not an absolute path`},
		{"no dir", `{"v":1,"spec":{"id":"r1","to":"codex","source":"source-r1"}}`, `dir "" is not an absolute path`},
		{"another run's session", `{"v":1,"spec":{"id":"r1","to":"codex","dir":"/p","source":"source-r2"}}`, `source "source-r2" is not run r1's session`},
		{"model as a flag", `{"v":1,"spec":{"id":"r1","to":"codex","dir":"/p","source":"source-r1","model":"--yolo"}}`, `model "--yolo"`},
		{"model with a newline", `{"v":1,"spec":{"id":"r1","to":"codex","dir":"/p","source":"source-r1","model":"m\n"}}`, `model "m\n"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWorkRequest([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// FuzzParseWorkRequest checks that a work request the daemon accepts
// names a run that can be a bus subject, a CLI stead runs, an absolute
// directory and the run's own stored session; that it is what the
// handler took before the fields were checked; and that Detach's
// encoding of it reads back the same.
func FuzzParseWorkRequest(f *testing.F) {
	for _, spec := range []Spec{
		{ID: "20261125-101500-0a1b2c3d4e5f", To: "claude", Dir: "/home/dev/proj", Prompt: "carry on", Model: "opus", Auto: true},
		{ID: "r_1", To: "codex", Dir: "/", Once: true, Trust: true},
		{ID: "r-2", To: "gemini", Dir: "/tmp/a b", Prompt: "line\nnext \x1b[A é"},
	} {
		f.Add(workRequestOf(f, spec))
	}
	f.Add([]byte(`{"v":1,"spec":{"id":"r1","to":"kimi","dir":"/p","source":"source-r1","model":"-m"},"extra":[1,{}]}`))
	f.Add([]byte(`{"spec":null}`))
	f.Add([]byte(`{"SPEC":{"ID":"r1","To":"opencode","Dir":"/x/../y","Source":"source-r1"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, err := ParseWorkRequest(data)

		// What the handler accepted before it checked the fields.
		var old WorkRequest
		oldErr := json.Unmarshal(data, &old)
		oldOK := oldErr == nil && bus.ValidRun(old.Spec.ID)

		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "bad work request") && !strings.HasPrefix(msg, "bad run id") {
				t.Fatalf("error %q does not say the request is bad", msg)
			}
			if oldErr != nil && !strings.Contains(err.Error(), oldErr.Error()) {
				t.Fatalf("error %q does not carry the JSON error %q", err, oldErr)
			}
			return
		}
		if !oldOK || !reflect.DeepEqual(spec, old.Spec) {
			t.Fatalf("accepted %+v, which the handler read as %+v (ok %v)", spec, old.Spec, oldOK)
		}
		if old.V < 1 || old.V > WorkVersion {
			t.Fatalf("accepted a request of version %d", old.V)
		}
		if !bus.ValidRun(spec.ID) || spec.Source != HistoryObject(spec.ID) {
			t.Fatalf("accepted run id %q with source %q", spec.ID, spec.Source)
		}
		if Runnable(spec.To) != nil {
			t.Fatalf("accepted CLI %q", spec.To)
		}
		if !filepath.IsAbs(spec.Dir) || strings.ContainsRune(spec.Dir, 0) {
			t.Fatalf("accepted dir %q", spec.Dir)
		}
		if strings.HasPrefix(spec.Model, "-") {
			t.Fatalf("accepted model %q", spec.Model)
		}
		again, err := ParseWorkRequest(workRequestOf(t, spec))
		if err != nil || !reflect.DeepEqual(again, spec) {
			t.Fatalf("Detach's request for %+v reads back as %+v, %v", spec, again, err)
		}
	})
}
