package opencode

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"math/big"
	"time"
)

// OpenCode's ids (opencode.md §3): a prefix ("ses", "msg", "prt"), "_",
// 12 hex digits, then 14 random base62 characters. The hex digits are the
// low 48 bits of ms*4096 + counter, the counter counting from 1 within a
// millisecond; session ids invert those bits, so newer sessions sort
// first, while message and part ids ascend. OpenCode orders messages by
// (time_created, id) and a message's parts by id.

const (
	base62     = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	idRandom   = 14
	idTimeMask = 1<<48 - 1
)

// idClock makes ascending ids for one session: each id's time part is
// greater than the last one's, whatever order the timestamps come in.
type idClock struct {
	last uint64 // ms*4096 + counter of the last id
}

// next returns the time part of a new id made at ms.
func (c *idClock) next(ms int64) uint64 {
	v := uint64(0)
	if ms > 0 {
		v = uint64(ms)*4096 + 1
	}
	if v <= c.last {
		v = c.last + 1
	}
	c.last = v
	return v
}

// ascending returns a new id with prefix at ms, greater than every id c
// made before.
func (c *idClock) ascending(prefix string, ms int64) string {
	return formatID(prefix, c.next(ms))
}

// newSessionID returns a session id made at t, as OpenCode makes one.
func newSessionID(t time.Time) string {
	v := uint64(t.UnixMilli())*4096 + 1
	return formatID("ses", ^v)
}

func formatID(prefix string, v uint64) string {
	var b [6]byte
	v &= idTimeMask
	for i := 0; i < 6; i++ {
		b[i] = byte(v >> (40 - 8*i))
	}
	return prefix + "_" + hex.EncodeToString(b[:]) + randomBase62(idRandom)
}

// random is the source of the ids' random characters; tests replace it.
var random io.Reader = rand.Reader

func randomBase62(n int) string {
	out := make([]byte, n)
	max := big.NewInt(int64(len(base62)))
	for i := range out {
		k, err := rand.Int(random, max)
		if err != nil {
			panic("opencode: no randomness: " + err.Error())
		}
		out[i] = base62[k.Int64()]
	}
	return string(out)
}
