package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/zstd"

	"github.com/stead-dev/stead/adapters"
	"github.com/stead-dev/stead/session"
)

// An index packs its entries' text with a zstd dictionary trained on its
// own text ('y', pack.go): the first refresh that reads enough sessions
// (trainAbove) samples them, trains the dictionary (64 KB, from about
// 1 MB of text, in under a second), keeps it in the dicts table, and
// packs with it from then on. What was packed before, or by a process
// that opened the index before the dictionary was made, stays as it was
// ('z'); every process reads both.

// dictsTable holds the dictionaries; made in an index of schema 8 made
// before them (as is the index of the runs' rows, which Status counts).
const dictsTable = `CREATE TABLE IF NOT EXISTS dicts (id INTEGER PRIMARY KEY, data BLOB NOT NULL, made TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS sessions_run ON sessions (run) WHERE run != '';`

// trainAbove is how many session bytes a refresh must read for it to
// train the index's dictionary (when it has none).
var trainAbove int64 = 64 << 20

// Training takes up to trainText bytes of entry text (each entry's first
// rankText), from up to trainSessions sessions of at most trainSession
// bytes each, spread over the refresh's sessions.
const (
	trainText     = 1 << 20
	trainSessions = 400
	trainSession  = 4 << 20
	dictSize      = 64 << 10
)

// dicts are an index's dictionaries: a decoder for each (read from the
// table when first needed), and the packer of the one it packs with
// (read when first asked for: a search or a refresh that reads nothing
// packs nothing).
type dicts struct {
	db   *sql.DB
	log  *slog.Logger
	mu   sync.Mutex
	decs map[uint32]*zstd.Decoder

	loaded  sync.Once
	loadErr error // why the table's newest dictionary cannot be used
	pk      atomic.Pointer[packer]
}

// errNoDict is a text packed with a dictionary the index does not hold.
var errNoDict = errors.New("index: an entry's text was packed with a dictionary the index does not hold")

// decoder is the decoder of dictionary id.
func (d *dicts) decoder(id uint32) (*zstd.Decoder, error) {
	if d == nil {
		return nil, errNoDict
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if dec, ok := d.decs[id]; ok {
		return dec, nil
	}
	var data []byte
	if err := d.db.QueryRow(`SELECT data FROM dicts WHERE id = ?`, id).Scan(&data); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errNoDict
		}
		return nil, fmt.Errorf("index: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(8*MaxEntryText), zstd.WithDecoderDicts(data))
	if err != nil {
		return nil, fmt.Errorf("index: the dictionary %d: %w", id, err)
	}
	if d.decs == nil {
		d.decs = make(map[uint32]*zstd.Decoder)
	}
	d.decs[id] = dec
	return dec, nil
}

// packer is the packer of the dictionary the index packs with; nil when
// it has none.
func (d *dicts) packer() *packer {
	if d == nil {
		return nil
	}
	d.loaded.Do(func() {
		if d.loadErr = d.load(); d.loadErr != nil {
			d.log.Warn("index: packing entries' text without a dictionary", "err", d.loadErr)
		}
	})
	return d.pk.Load()
}

// load takes the newest dictionary of the table to pack with.
func (d *dicts) load() error {
	var id uint32
	var data []byte
	err := d.db.QueryRow(`SELECT id, data FROM dicts ORDER BY made DESC, rowid DESC LIMIT 1`).Scan(&id, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return d.use(id, data)
}

// dictLevel is the level texts are packed at with a dictionary. Each text
// is packed on its own, and with a dictionary zstd sets its match tables
// back to the dictionary's before each: SpeedDefault's tables (1.25 MB)
// made that copy most of a cold build's packing. On the 300-session
// benchmark corpus's 53,695 texts (38.6 MB) SpeedFastest (256 KB of
// tables) packed them in 0.55 s where SpeedDefault took 1.73 s, and to
// 13.3 MB rather than 14.0.
//
// Its literals are left as they are, not Huffman-coded: the dictionary's
// matches leave few, and a table built for each short text cost more
// than it saved. On 99,606 texts of the 10,000-session corpus (57 MB),
// packing ran at 86 MB/s instead of 67 and unpacking at 262 instead of
// 212, for 35.6 % of the text instead of 35.0 %.
const dictLevel = zstd.SpeedFastest

// use packs with dictionary data from now on.
func (d *dicts) use(id uint32, data []byte) error {
	opts := append(packOptions(dictLevel), zstd.WithNoEntropyCompression(true), zstd.WithEncoderDict(data))
	if _, err := zstd.NewWriter(nil, opts[len(opts)-1]); err != nil { // a dictionary zstd cannot read
		return fmt.Errorf("index: the dictionary %d: %w", id, err)
	}
	enc := sync.OnceValue(func() *zstd.Encoder {
		e, err := zstd.NewWriter(nil, opts...)
		if err != nil {
			panic(err) // checked above
		}
		return e
	})
	d.pk.Store(&packer{id: id, enc: enc, pre: binary.AppendUvarint(nil, uint64(id))})
	return nil
}

// train makes a dictionary of samples, keeps it in the index and packs
// with it from now on.
func (d *dicts) train(ctx context.Context, samples [][]byte) error {
	// Small ids: each frame names its dictionary, in one byte below 256.
	var id uint32
	if err := d.db.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) + 1 FROM dicts`).Scan(&id); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	data, err := dict.BuildZstdDict(samples, dict.Options{MaxDictSize: dictSize, HashBytes: 6, ZstdLevel: zstd.SpeedDefault, ZstdDictID: id})
	if err != nil {
		return fmt.Errorf("index: training a dictionary: %w", err)
	}
	if len(data) < 8 || binary.LittleEndian.Uint32(data[4:8]) != id { // after zstd's magic number
		return errors.New("index: training a dictionary: it came out without its id")
	}
	if _, err := d.db.ExecContext(ctx, `INSERT INTO dicts (id, data, made) VALUES (?, ?, ?)`,
		id, data, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	return d.use(id, data)
}

// sampleJob is a session a refresh is to read, as training samples it.
type sampleJob struct {
	a    adapters.Adapter
	ref  session.Ref
	size int64
}

// trainFrom trains the index's dictionary on the text of a spread of the
// sessions a refresh is to read, when it has none and the refresh reads
// enough; a session that cannot be read is passed over (the refresh
// reports it). A dictionary that cannot be made leaves the index packing
// without one.
func (ix *Index) trainFrom(ctx context.Context, env session.Env, jobs []sampleJob) {
	if ix.dicts.packer() != nil || ix.dicts.loadErr != nil {
		return // it has one, or one it cannot use: it makes no other
	}
	var total int64
	for _, j := range jobs {
		total += j.size
	}
	if total < trainAbove || len(jobs) == 0 {
		return
	}
	begin := time.Now()
	var samples [][]byte
	text, sampled := 0, 0
	step := max(1, len(jobs)/trainSessions)
	for i := 0; i < len(jobs) && text < trainText && sampled < trainSessions; i += step {
		j := jobs[i]
		if j.size > trainSession || ctx.Err() != nil {
			continue
		}
		doc, err := read(env, j.a, j.ref, nil)
		if err != nil {
			continue
		}
		sampled++
		for _, r := range doc.rows {
			s := r.text[:min(len(r.text), rankText)]
			if len(s) < packMin {
				continue
			}
			samples = append(samples, []byte(s))
			text += len(s)
		}
	}
	if text < 64<<10 {
		return // too little to learn from
	}
	if err := ix.dicts.train(ctx, samples); err != nil {
		ix.log.Warn("index: packing without a dictionary", "err", err)
		return
	}
	ix.log.Info("index: trained a dictionary for the entries' text", "sessions", sampled, "text", text, "took", time.Since(begin))
}
