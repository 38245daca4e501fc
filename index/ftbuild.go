package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"
)

// This file and ftseg.go, ftmatch.go, ftindex.go are stead's own
// full-text index, which took the place of FTS5, whose one writer bounded
// a cold build (docs/performance.md, stop 45). The words of the entries a
// transaction writes are gathered into a segment beside the writer (a
// ftBuilder on a goroutine of its own), written out as a file of its own,
// and merged with others in the background, where FTS5 tokenized, hashed
// and merged every word on its one writing connection. A segment matches
// a query as FTS5 did (words, phrases, prefixes, OR, NOT;
// TestSegmentsMatchLikeFTS5), listing the entries (documents, by id)
// from the newest.
//
// A segment file, all numbers unsigned varints unless said otherwise:
//
//	postings  for each term, in term order: its documents, each as its id
//	          less the one before (the first as it is) and how many times
//	          the term is in it; then its positions, for each document
//	          the term's places (word numbers, from 0) each less the one
//	          before, the first as it is
//	dict      blocks of up to ftBlockTerms terms in order: each term as
//	          the length it shares with the one before, the length of the
//	          rest and the rest; its documents' count; the lengths of its
//	          documents and of its positions (a term's postings follow the
//	          previous term's)
//	index     the blocks' count; for each block its first term (length,
//	          bytes), where the block starts less where the one before
//	          started, and where its first term's postings start less the
//	          same of the block before
//	footer    ftFooterSize bytes: where dict and index start, the number
//	          of documents, the smallest and largest document (8 bytes
//	          each, little-endian), then ftMagic

// ftMagic ends every segment file.
const ftMagic = "steadft1"

// ftFooterSize is the footer's length: five 8-byte numbers and ftMagic.
const ftFooterSize = 5*8 + len(ftMagic)

// ftBlockTerms is how many terms a dictionary block holds: a lookup
// reads one block and walks at most this many terms.
const ftBlockTerms = 64

// ftMaxTerm is the longest term kept whole, in bytes: a longer word (a
// line of base64, a minified bundle) is kept as its first ftMaxTerm
// bytes, so that no single word can swell the dictionary.
const ftMaxTerm = 128

// ftBuilder gathers the words of documents given in increasing order of
// their ids, for one segment. A builder is one goroutine's.
type ftBuilder struct {
	// The terms: their bytes one after the other in arena, found by
	// their hash in slots (open addressing; a list's index plus one, 0
	// for none).
	slots   []int32
	arena   []byte
	seed    maphash.Seed
	lists   []ftList
	docs    int
	first   int64
	last    int64
	tokens  []int32 // the current document's words, as lists
	touched []int32 // the lists the current document has words in
	fold    []byte
}

// ftList is one term's postings as the builder gathers them.
type ftList struct {
	docs  []byte // as in the file: id less the previous, count
	pos   []byte
	last  int64 // the last document added (0: none yet)
	hash  uint64
	term  int32 // where its term starts in arena
	n     int32 // its term's length
	count int32 // the term's places in the current document
	at    int32 // the last place written for the current document
	ndocs int32
}

func newFTBuilder() *ftBuilder {
	return &ftBuilder{slots: make([]int32, 1<<12), seed: maphash.MakeSeed()}
}

// add adds document doc's words: those of its texts, one after the other
// (a phrase may run from one into the next, as from a line into the
// next). Documents come in increasing order of their ids; ids are
// positive.
func (b *ftBuilder) add(doc int64, texts ...string) error {
	if doc <= b.last {
		return fmt.Errorf("index: full text: document %d after %d", doc, b.last)
	}
	if b.docs == 0 {
		b.first = doc
	}
	b.docs++
	b.last = doc
	b.tokens = b.tokens[:0]
	b.touched = b.touched[:0]
	for _, text := range texts {
		b.words(text)
	}
	b.close(doc)
	return nil
}

// words adds text's words to the current document's.
func (b *ftBuilder) words(text string) {
	i := 0
	for i < len(text) {
		// A run of ASCII letters and digits, lower-cased as it is read
		// (most words), unless a letter beyond ASCII goes on with it.
		if c := text[i]; c < utf8.RuneSelf {
			if !wordByte[c] {
				i++
				continue
			}
			start, f := i, b.fold[:0]
			for i < len(text) && wordByte[text[i]] {
				c := text[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				f = append(f, c)
				i++
			}
			b.fold = f
			if i == len(text) || text[i] < utf8.RuneSelf {
				b.token(ftCut(f))
				continue
			}
			i = start
		}
		w, ok := nextWord(text, i)
		if !ok {
			break
		}
		b.fold = appendWord(b.fold[:0], text, w)
		b.token(ftCut(b.fold))
		i = w.end
	}
}

// close writes the current document's postings: each term's document
// and count, then its places.
func (b *ftBuilder) close(doc int64) {
	for _, id := range b.touched {
		l := &b.lists[id]
		l.docs = binary.AppendUvarint(l.docs, uint64(doc-l.last))
		l.docs = binary.AppendUvarint(l.docs, uint64(l.count))
		l.last = doc
		l.ndocs++
		l.at = -1
	}
	for place, id := range b.tokens {
		l := &b.lists[id]
		if l.at < 0 {
			l.pos = binary.AppendUvarint(l.pos, uint64(place))
		} else {
			l.pos = binary.AppendUvarint(l.pos, uint64(int32(place)-l.at))
		}
		l.at = int32(place)
	}
	for _, id := range b.touched {
		b.lists[id].count = 0
	}
}

// token adds the current document's next word, t (folded).
func (b *ftBuilder) token(t []byte) {
	id := b.termID(t)
	l := &b.lists[id]
	if l.count == 0 {
		b.touched = append(b.touched, id)
	}
	l.count++
	b.tokens = append(b.tokens, id)
}

// termID is term t's list, made when t is new.
func (b *ftBuilder) termID(t []byte) int32 {
	h := maphash.Bytes(b.seed, t)
	mask := uint64(len(b.slots) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		s := b.slots[k]
		if s == 0 {
			id := int32(len(b.lists))
			b.lists = append(b.lists, ftList{hash: h, term: int32(len(b.arena)), n: int32(len(t))})
			b.arena = append(b.arena, t...)
			b.slots[k] = id + 1
			if len(b.lists)*4 > len(b.slots)*3 {
				b.grow()
			}
			return id
		}
		if l := &b.lists[s-1]; l.hash == h && string(b.arena[l.term:l.term+l.n]) == string(t) {
			return s - 1
		}
	}
}

// grow doubles the slots.
func (b *ftBuilder) grow() {
	b.slots = make([]int32, 2*len(b.slots))
	mask := uint64(len(b.slots) - 1)
	for id := range b.lists {
		k := b.lists[id].hash & mask
		for b.slots[k] != 0 {
			k = (k + 1) & mask
		}
		b.slots[k] = int32(id) + 1
	}
}

// termOf is list id's term.
func (b *ftBuilder) termOf(id int32) []byte {
	l := &b.lists[id]
	return b.arena[l.term : l.term+l.n]
}

// ftCut is term cut to ftMaxTerm bytes at a character's start.
func ftCut(t []byte) []byte {
	if len(t) <= ftMaxTerm {
		return t
	}
	n := ftMaxTerm
	for n > 0 && t[n]&0xC0 == 0x80 {
		n--
	}
	return t[:n]
}

// empty reports whether the builder holds no document.
func (b *ftBuilder) empty() bool { return b.docs == 0 }

// write writes the builder's segment to w.
func (b *ftBuilder) write(w io.Writer) error {
	order := make([]int32, len(b.lists))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return bytes.Compare(b.termOf(x), b.termOf(y)) })
	var dict bytes.Buffer // a builder's is small
	sw := &segWriter{w: w, dict: &dict}
	for _, id := range order {
		l := &b.lists[id]
		if err := sw.term(string(b.termOf(id)), int(l.ndocs), l.docs, l.pos); err != nil {
			return err
		}
	}
	return sw.finish(func() (io.Reader, error) { return &dict, nil }, int64(b.docs), b.first, b.last)
}

// writeFile writes the builder's segment to a new file at path (made
// atomically: a file at path is whole).
func (b *ftBuilder) writeFile(path string) error {
	return writeSegFile(path, func(w io.Writer) error { return b.write(w) })
}

// writeSegFile writes a segment made by fill to path through a temporary
// file beside it, renamed into place once written and synced.
func writeSegFile(path string, fill func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".seg-*")
	if err != nil {
		return fmt.Errorf("index: full text: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := fill(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("index: full text: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("index: full text: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("index: full text: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("index: full text: %w", err)
	}
	return nil
}

// segWriter writes a segment's parts as its terms come, in order: the
// postings to w; the dictionary, which follows them in the file, to dict
// (a buffer, or a merge's scratch file), copied after them by finish.
type segWriter struct {
	w, dict  io.Writer
	off      int64 // the postings written
	dictOff  int64 // the dictionary written
	index    []byte
	block    []byte
	inBlock  int
	prev     string
	blocks   int
	lastDict int64 // where the last block starts in the dictionary
	lastPost int64 // where its first term's postings start
	err      error
}

func (s *segWriter) write(p []byte) {
	if s.err != nil {
		return
	}
	_, s.err = s.w.Write(p)
	s.off += int64(len(p))
}

// term adds term (after the one before) with its postings.
func (s *segWriter) term(t string, ndocs int, docs, pos []byte) error {
	if s.inBlock == ftBlockTerms {
		s.flushBlock()
	}
	if s.inBlock == 0 {
		s.index = binary.AppendUvarint(s.index, uint64(len(t)))
		s.index = append(s.index, t...)
		s.index = binary.AppendUvarint(s.index, uint64(s.dictOff-s.lastDict))
		s.index = binary.AppendUvarint(s.index, uint64(s.off-s.lastPost))
		s.lastDict, s.lastPost = s.dictOff, s.off
		s.blocks++
		s.prev = ""
	}
	shared := 0
	for shared < len(t) && shared < len(s.prev) && t[shared] == s.prev[shared] {
		shared++
	}
	s.block = binary.AppendUvarint(s.block, uint64(shared))
	s.block = binary.AppendUvarint(s.block, uint64(len(t)-shared))
	s.block = append(s.block, t[shared:]...)
	s.block = binary.AppendUvarint(s.block, uint64(ndocs))
	s.block = binary.AppendUvarint(s.block, uint64(len(docs)))
	s.block = binary.AppendUvarint(s.block, uint64(len(pos)))
	s.inBlock++
	s.prev = t
	s.write(docs)
	s.write(pos)
	return s.err
}

// flushBlock writes the block of terms gathered, its count first.
func (s *segWriter) flushBlock() {
	if s.inBlock == 0 || s.err != nil {
		return
	}
	head := binary.AppendUvarint(nil, uint64(s.inBlock))
	if _, err := s.dict.Write(head); err != nil {
		s.err = err
	} else if _, err := s.dict.Write(s.block); err != nil {
		s.err = err
	}
	s.dictOff += int64(len(head) + len(s.block))
	s.block, s.inBlock = s.block[:0], 0
}

// finish copies the dictionary after the postings, from what written
// (called once the segWriter's dict is flushed) reads of it, then writes
// the index and the footer.
func (s *segWriter) finish(written func() (io.Reader, error), ndocs, first, last int64) error {
	s.flushBlock()
	if f, ok := s.dict.(interface{ Flush() error }); ok && s.err == nil {
		s.err = f.Flush()
	}
	if s.err != nil {
		return fmt.Errorf("index: full text: %w", s.err)
	}
	dict, err := written()
	if err != nil {
		return fmt.Errorf("index: full text: %w", err)
	}
	dictAt := s.off
	copied, err := io.Copy(s.w, dict)
	if err != nil {
		return fmt.Errorf("index: full text: %w", err)
	}
	if copied != s.dictOff {
		return fmt.Errorf("index: full text: the dictionary's scratch holds %d bytes, not %d", copied, s.dictOff)
	}
	return s.tail(dictAt, ndocs, first, last)
}

// tail writes the index and the footer after the dictionary, which
// starts at dictAt.
func (s *segWriter) tail(dictAt, ndocs, first, last int64) error {
	indexAt := dictAt + s.dictOff
	s.off = indexAt
	s.write(binary.AppendUvarint(nil, uint64(s.blocks)))
	s.write(s.index)
	var foot [ftFooterSize]byte
	binary.LittleEndian.PutUint64(foot[0:], uint64(dictAt))
	binary.LittleEndian.PutUint64(foot[8:], uint64(indexAt))
	binary.LittleEndian.PutUint64(foot[16:], uint64(ndocs))
	binary.LittleEndian.PutUint64(foot[24:], uint64(first))
	binary.LittleEndian.PutUint64(foot[32:], uint64(last))
	copy(foot[40:], ftMagic)
	s.write(foot[:])
	if s.err != nil {
		return fmt.Errorf("index: full text: %w", s.err)
	}
	return nil
}

// errSegment is the error of a segment file that is not one stead wrote
// whole.
var errSegment = errors.New("not a whole full-text segment")
