package opencode

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stead-dev/stead/adapters/internal/jsonread"
	"github.com/stead-dev/stead/session"
)

// jsonread.Parse must read each record type as encoding/json reads it, or
// give up.

// sameAsEncodingJSON fails t when jsonread.Parse reads b and encoding/json
// reads it otherwise.
func sameAsEncodingJSON[T any, P interface {
	*T
	jsonread.Object
}](t *testing.T, b []byte) {
	var fast, slow T
	if !jsonread.Parse(bytes.Clone(b), P(&fast)) {
		return
	}
	if err := json.Unmarshal(b, &slow); err != nil {
		t.Fatalf("jsonread.Parse read %q, encoding/json did not: %v", b, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\njsonread.Parse %+v\nencoding/json %+v", b, fast, slow)
	}
}

var recordSeeds = []string{
	`{"id":"ses_a","slug":"s","projectID":"p","parentID":"q","directory":"/d","title":"t","version":"1.18.33","model":{"id":"m","providerID":"p"},"time":{"created":1795000000000,"updated":"x"},"metadata":{"steadOrigin":{}}}`,
	`{"id":"msg_a","role":"assistant","parentID":"msg_b","modelID":"m","providerID":"p","model":null,"mode":"build","time":{"created":1.5e12,"completed":-1},"cost":0.004,"tokens":{"input":1,"output":"2","reasoning":null,"cache":{"read":1e300,"write":[1]}},"error":{"name":"E","data":{"message":"m"}},"summary":true}`,
	`{"id":"prt_a","type":"tool","tool":"bash","callID":"c","state":{"status":"completed","input":{"command":"ls"},"output":"o","error":"","metadata":{"truncated":false},"time":{"start":1,"end":2},"attachments":[{"type":"file","mime":"image/png","url":"data:x"},null]}}`,
	`{"type":"text","text":"a\u00e9\ud83d\ude00\n","synthetic":true,"time":{"start":1795000000000}}`,
	`{"type":"step-finish","tokens":{"input":3},"cost":1e400}`, `{"type":"retry","attempt":1.5}`, `{"type":"retry","attempt":2,"error":null}`,
	`{"ID":"x"}`, `{"Type":"text","type":"text"}`, `{"id":"a","id":"b"}`, `{"i\u0064":"a"}`, `{"time":{"Start":1}}`, `{"time":5}`, `{"state":[]}`,
	`{"tokens":{"cache":null}}`, `{"model":{"modelID":7}}`, "{\"text\":\"\xff\"}", `{"text":"a"} x`, `{"text":01}`,
}

func FuzzParseRecords(f *testing.F) {
	for _, s := range recordSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sameAsEncodingJSON[sessionInfo](t, b)
		sameAsEncodingJSON[messageInfo](t, b)
		sameAsEncodingJSON[part](t, b)
	})
}

// TestReadSameWithoutParser reads every export of the testdata and the
// fuzz seeds with jsonread and with encoding/json alone: the sessions and
// summaries must be the same.
func TestReadSameWithoutParser(t *testing.T) {
	inputs := map[string][]byte{}
	for _, name := range []string{"testdata/export-run1.txtar", "testdata/export-importF.txtar"} {
		for i, b := range nativeFiles(t, name) {
			inputs[name+string(rune('0'+i))] = b
		}
	}
	for i, s := range append(exportSeeds, recordSeeds...) {
		inputs["seed"+string(rune('a'+i))] = []byte(s)
	}
	for name, b := range inputs {
		fast, ferr := Read(bytes.NewReader(b))
		fsum, fserr := Summarize(bytes.NewReader(b), session.DetailFull)
		jsonread.Disabled = true
		slow, serr := Read(bytes.NewReader(b))
		ssum, sserr := Summarize(bytes.NewReader(b), session.DetailFull)
		jsonread.Disabled = false
		if (ferr == nil) != (serr == nil) || !reflect.DeepEqual(fast, slow) {
			fj, _ := json.Marshal(fast)
			sj, _ := json.Marshal(slow)
			t.Errorf("%s: read otherwise without jsonread (%v, %v):\n%s\n%s", name, ferr, serr, fj, sj)
		}
		if (fserr == nil) != (sserr == nil) || !reflect.DeepEqual(fsum, ssum) {
			t.Errorf("%s: summarised otherwise without jsonread:\n%+v\n%+v", name, fsum, ssum)
		}
	}
}
