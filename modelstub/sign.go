package modelstub

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// The stub signs the thinking it returns as each API does, so that a
// strict stub can refuse, as the real API refuses, thinking it could not
// have signed: Anthropic's thinking block signature, OpenAI's encrypted
// reasoning, Gemini's thought signature. The keys are fixed per API, not
// per stub: any stub accepts what any stub of the same API signed, as the
// real API accepts what it signed in an earlier process, and no API
// accepts another's.
var signKeys = map[API][]byte{
	Anthropic: []byte("stead stub: Anthropic thinking signatures, v1"),
	Responses: []byte("stead stub: OpenAI encrypted reasoning, v1"),
	Gemini:    []byte("stead stub: Gemini thought signatures, v1"),
}

// macLen is how much of an HMAC-SHA256 a token keeps.
const macLen = 16

func mac(api API, data []byte) []byte {
	h := hmac.New(sha256.New, signKeys[api])
	h.Write(data)
	return h.Sum(nil)[:macLen]
}

// signThinking returns an Anthropic thinking block's signature: the
// digest of its text and the API's MAC of that digest. Like the real one,
// it carries what it signs, so a block sent back with its text left out
// (Claude Code's display "omitted" leaves it empty) still verifies.
func signThinking(text string) string {
	d := sha256.Sum256([]byte(text))
	return base64.StdEncoding.EncodeToString(append(d[:], mac(Anthropic, d[:])...))
}

// thinkingSigned reports whether sig is a signature the stub's Anthropic
// API made for text (or for any text, when text is empty).
func thinkingSigned(text, sig string) bool {
	b, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || len(b) != sha256.Size+macLen {
		return false
	}
	d, m := b[:sha256.Size], b[sha256.Size:]
	if !hmac.Equal(m, mac(Anthropic, d)) {
		return false
	}
	if text == "" {
		return true
	}
	sum := sha256.Sum256([]byte(text))
	return hmac.Equal(sum[:], d)
}

// encryptedPrefix starts OpenAI's encrypted reasoning (a Fernet token).
const encryptedPrefix = "gAAAAA"

// encryptReasoning returns a reasoning item's encrypted_content: the
// reasoning text and the API's MAC of it (not secret, but only the stub's
// Responses API makes one that verifies).
func encryptReasoning(text string) string {
	b := []byte(text)
	return encryptedPrefix + base64.URLEncoding.EncodeToString(append(b, mac(Responses, b)...))
}

// reasoningDecrypts reports whether enc is encrypted reasoning the stub's
// Responses API made.
func reasoningDecrypts(enc string) bool {
	rest, ok := strings.CutPrefix(enc, encryptedPrefix)
	if !ok {
		return false
	}
	b, err := base64.URLEncoding.DecodeString(rest)
	if err != nil || len(b) < macLen {
		return false
	}
	text, m := b[:len(b)-macLen], b[len(b)-macLen:]
	return hmac.Equal(m, mac(Responses, text))
}

// geminiSkipSignatures are the values Gemini documents for a thought
// signature a client has none for: the API takes them instead of one.
var geminiSkipSignatures = map[string]bool{
	"skip_thought_signature_validator":     true,
	"context_engineering_is_the_way_to_go": true,
}

// signThought returns a Gemini thought signature for a response part:
// a digest of what the part holds and the API's MAC of it.
func signThought(part string) string {
	d := sha256.Sum256([]byte(part))
	return base64.StdEncoding.EncodeToString(append(d[:macLen], mac(Gemini, d[:macLen])...))
}

// thoughtSigned reports whether sig is a thought signature the stub's
// Gemini API made, or one Gemini takes in place of one. (The part it was
// made for is not checked: clients rebuild parts, with their arguments
// re-encoded.)
func thoughtSigned(sig string) bool {
	if geminiSkipSignatures[sig] {
		return true
	}
	b, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || len(b) != 2*macLen {
		return false
	}
	return hmac.Equal(b[macLen:], mac(Gemini, b[:macLen]))
}
