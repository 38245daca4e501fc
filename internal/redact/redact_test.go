package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Fake secrets of each shape (none is a real key).
var secrets = map[string]string{
	"anthropic-key":  "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd",
	"openai-key":     "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
	"aws-access-key": "AKIAIOSFODNN7EXAMPLE",
	"github-token":   "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
	"gitlab-token":   "glpat-AbCdEfGhIjKlMnOpQrSt",
	"slack-token":    "xoxb-1234567890-abcdefghij",
	"google-api-key": "AIzaSyA-1234567890abcdefghijklmnopqrstu",
	"stripe-key":     "sk_live_AbCdEfGhIjKlMnOpQrStUvWx",
	"jwt":            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}

func TestSecretsRedacted(t *testing.T) {
	for kind, secret := range secrets {
		for _, text := range []string{
			"export TOKEN=" + secret + "\n",
			"the key is " + secret + ", keep it safe",
			`{"output":"` + secret + `"}`,
		} {
			got := String(text)
			if strings.Contains(got, secret) || !strings.Contains(got, "[REDACTED:") {
				t.Errorf("%s: String(%q) = %q", kind, text, got)
			}
		}
	}
}

func TestSecretValues(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"password=hunter2hunter2", "password=[REDACTED:secret]"},
		{`"api_key": "abcd1234efgh"`, `"api_key": "[REDACTED:secret]"`},
		{`{\"client_secret\":\"s3cr3tvalue\"}`, `{\"client_secret\":\"[REDACTED:secret]\"}`},
		{"Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", "Authorization: Bearer [REDACTED:bearer-token]"},
		{"password: short", "password: short"},
		{"no secrets here, just sk- and AKIA", "no secrets here, just sk- and AKIA"},
	} {
		if got := String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestJSONStaysValid: redacting JSON text keeps it JSON, with the secrets
// gone from every string, private key blocks included.
func TestJSONStaysValid(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----"
	v := map[string]any{"a": "x " + secrets["openai-key"] + " y", "b": []any{pem, `key="` + secrets["stripe-key"] + `"`},
		"c": "password=\"hunter2hunter2\"", "d": "Bearer " + strings.Repeat("Zz09", 8)}
	data, _ := json.Marshal(v)
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write(data[:10])
	w.Write(data[10:])
	w.Close()
	var back map[string]any
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatalf("not JSON after redaction: %v\n%s", err, out.String())
	}
	for _, s := range []string{secrets["openai-key"], secrets["stripe-key"], "MIIEowIBAAKCAQEA", "hunter2hunter2", "Zz09Zz09"} {
		if strings.Contains(out.String(), s) {
			t.Errorf("%q left in %s", s, out.String())
		}
	}
}

// TestPEMAcrossLines: a private key block in plain text is hidden from
// its BEGIN line to its END line.
func TestPEMAcrossLines(t *testing.T) {
	in := "before\nkey: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY----- after\nlast"
	var out bytes.Buffer
	w := NewWriter(&out)
	for _, c := range []byte(in) {
		w.Write([]byte{c})
	}
	w.Close()
	want := "before\nkey: [REDACTED:private-key]\n after\nlast"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestNoDoubleRedaction(t *testing.T) {
	in := `{"api_key":"` + secrets["openai-key"] + `"}`
	if got, want := String(in), `{"api_key":"[REDACTED:openai-key]"}`; got != want {
		t.Errorf("String(%q) = %q, want %q", in, got, want)
	}
}
