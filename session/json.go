package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// Marshal returns the canonical JSON encoding of s: compact, fields in a
// fixed order, and HTML characters left as they are.
func Marshal(s *Session) ([]byte, error) {
	return MarshalCompact(s)
}

// Encode writes s to w as canonical JSON followed by a newline, indented
// with two spaces when indent is true: the bytes encoding/json's Encoder
// writes (HTML characters left as they are), written as they are encoded
// (see EncodeStream), so that a session is never held encoded whole. A
// session with an entry of an unknown type is refused before anything is
// written.
func Encode(w io.Writer, s *Session, indent bool) error {
	for i := range s.Timeline {
		if e := &s.Timeline[i]; !e.Type.Valid() {
			return fmt.Errorf("session: entry %q has invalid type %q", e.ID, e.Type)
		}
	}
	return EncodeStream(w, s, &sliceEntries{tl: s.Timeline}, nil, indent)
}

// ErrNotSession means a JSON document is not a universal session: it
// lacks one of the fields every session has (id, version, source and a
// timeline array), as {"a":1} does.
var ErrNotSession = errors.New("not a universal session")

// Unmarshal decodes a universal session document; a document that is not
// one is refused with ErrNotSession.
func Unmarshal(b []byte) (*Session, error) {
	var s Session
	d := sessionDoc{sessionJSON: (*sessionJSON)(&s)}
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, err
	}
	return d.session()
}

// Decode reads one universal session document from r, as Unmarshal.
func Decode(r io.Reader) (*Session, error) {
	var s Session
	d := sessionDoc{sessionJSON: (*sessionJSON)(&s)}
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, err
	}
	return d.session()
}

// sessionDoc decodes a session in one pass while noting which of the
// fields every session has are present.
type sessionDoc struct {
	*sessionJSON
	ID       *string  `json:"id"`
	Version  *string  `json:"version"`
	Source   *Source  `json:"source"`
	Timeline *[]Entry `json:"timeline"`
}

func (d *sessionDoc) session() (*Session, error) {
	var missing []string
	if d.ID == nil {
		missing = append(missing, `"id"`)
	}
	if d.Version == nil {
		missing = append(missing, `"version"`)
	}
	if d.Source == nil {
		missing = append(missing, `"source"`)
	}
	if d.Timeline == nil {
		missing = append(missing, `a "timeline" array`)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: it has no %s", ErrNotSession, strings.Join(missing, ", "))
	}
	s := (*Session)(d.sessionJSON)
	s.ID, s.Version, s.Source, s.Timeline = *d.ID, *d.Version, *d.Source, *d.Timeline
	return s, nil
}

type sessionJSON Session

// MarshalJSON writes the session with an empty timeline as [] rather than
// null, as seed 001 requires an array.
func (s Session) MarshalJSON() ([]byte, error) {
	if s.Timeline == nil {
		s.Timeline = []Entry{}
	}
	if s.Version == "" {
		s.Version = Version
	}
	return MarshalCompact(sessionJSON(s))
}

type metadataJSON struct {
	Created      string   `json:"created"`
	LastModified string   `json:"lastModified"`
	Tokens       *Usage   `json:"tokens,omitempty"`
	Cost         *float64 `json:"cost,omitempty"`
}

// MarshalJSON writes times as ISO 8601 strings in UTC.
func (m Metadata) MarshalJSON() ([]byte, error) {
	return MarshalCompact(metadataJSON{
		Created:      FormatTime(m.Created),
		LastModified: FormatTime(m.LastModified),
		Tokens:       m.Tokens,
		Cost:         m.Cost,
	})
}

// UnmarshalJSON reads times written by MarshalJSON.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	var w metadataJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	created, err := ParseTime(w.Created)
	if err != nil {
		return fmt.Errorf("session: metadata.created: %w", err)
	}
	last, err := ParseTime(w.LastModified)
	if err != nil {
		return fmt.Errorf("session: metadata.lastModified: %w", err)
	}
	*m = Metadata{Created: created, LastModified: last, Tokens: w.Tokens, Cost: w.Cost}
	return nil
}

// MarshalCompact encodes v as compact JSON with <, > and & left as they
// are: the way stead writes JSON, and the way the CLIs do (JavaScript's
// JSON.stringify, Python's json.dumps without ensure_ascii).
func MarshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// FormatTime formats t as an ISO 8601 UTC timestamp with millisecond
// precision (more when t has it), or "" for the zero time: a source that
// recorded no time gets none invented.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	if t.Nanosecond()%int(time.Millisecond) == 0 {
		return t.Format("2006-01-02T15:04:05.000Z07:00")
	}
	return t.Format(time.RFC3339Nano)
}

// ParseTime parses the timestamps found in native stores: RFC 3339 with or
// without fractional seconds, with a zone or (taken as UTC) without one. The
// empty string is the zero time. A time whose year in UTC is not 0 to 9999
// ("9999-12-31T23:30:00-01:00") is refused: FormatTime could not write it
// as a time ParseTime reads.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return inRange(t.UTC(), s)
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return inRange(t.UTC(), s)
		}
	}
	return time.Time{}, fmt.Errorf("bad timestamp %q", truncate(s, 40))
}

func inRange(t time.Time, s string) (time.Time, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		return time.Time{}, fmt.Errorf("bad timestamp %q: in UTC its year is %d", truncate(s, 40), y)
	}
	return t, nil
}

// UnixMilli converts a count of milliseconds since the epoch, the form some
// stores use, to a time.
func UnixMilli(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
