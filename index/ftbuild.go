package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	terms   map[string]int32 // a term's list
	lists   []ftList
	docs    int
	first   int64
	last    int64
	tokens  []int32 // the current document's words, as lists
	touched []int32 // the lists the current document has words in
	fold    []byte
	size    int // roughly what the builder holds, in bytes
}

// ftList is one term's postings as the builder gathers them.
type ftList struct {
	docs  []byte // as in the file: id less the previous, count
	pos   []byte
	last  int64 // the last document added (0: none yet)
	count int32 // the term's places in the current document
	at    int32 // the last place written for the current document
	ndocs int32
}

func newFTBuilder() *ftBuilder {
	return &ftBuilder{terms: make(map[string]int32)}
}

// add adds document doc's text. Documents come in increasing order of
// their ids; ids are positive.
func (b *ftBuilder) add(doc int64, text string) error {
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
	for w, ok := nextWord(text, 0); ok; w, ok = nextWord(text, w.end) {
		var (
			id    int32
			found bool
		)
		if t := text[w.start:w.end]; !w.wide && len(t) <= ftMaxTerm && isLowerASCII(t) {
			if id, found = b.terms[t]; !found {
				id = b.newTerm(strings.Clone(t))
			}
		} else {
			b.fold = appendWord(b.fold[:0], text, w)
			f := ftCut(b.fold)
			if id, found = b.terms[string(f)]; !found {
				id = b.newTerm(string(f))
			}
		}
		l := &b.lists[id]
		if l.count == 0 {
			b.touched = append(b.touched, id)
		}
		l.count++
		b.tokens = append(b.tokens, id)
	}
	// Each term's document and count, then its places.
	for _, id := range b.touched {
		l := &b.lists[id]
		n := len(l.docs)
		l.docs = binary.AppendUvarint(l.docs, uint64(doc-l.last))
		l.docs = binary.AppendUvarint(l.docs, uint64(l.count))
		b.size += len(l.docs) - n
		l.last = doc
		l.ndocs++
		l.at = -1
	}
	for place, id := range b.tokens {
		l := &b.lists[id]
		n := len(l.pos)
		if l.at < 0 {
			l.pos = binary.AppendUvarint(l.pos, uint64(place))
		} else {
			l.pos = binary.AppendUvarint(l.pos, uint64(int32(place)-l.at))
		}
		b.size += len(l.pos) - n
		l.at = int32(place)
	}
	for _, id := range b.touched {
		b.lists[id].count = 0
	}
	return nil
}

// newTerm gives term, new to the builder, a list.
func (b *ftBuilder) newTerm(t string) int32 {
	id := int32(len(b.lists))
	b.terms[t] = id
	b.lists = append(b.lists, ftList{})
	b.size += len(t) + 64
	return id
}

// isLowerASCII reports whether s has no upper-case ASCII letter (and so
// is its own folding, when it is ASCII).
func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
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
	terms := make([]string, 0, len(b.terms))
	for t := range b.terms {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	sw := newSegWriter(w, io.Discard)
	sw.inline = true
	for _, t := range terms {
		l := &b.lists[b.terms[t]]
		if err := sw.term(t, int(l.ndocs), l.docs, l.pos); err != nil {
			return err
		}
	}
	return sw.finish(int64(b.docs), b.first, b.last)
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
// (a temporary file a merge copies after them), or kept in memory when
// inline (a builder's, small).
type segWriter struct {
	w, dict   io.Writer
	inline    bool
	mem       []byte // the dictionary, inline
	off       int64  // the postings written
	dictOff   int64  // the dictionary written
	index     []byte
	block     []byte
	inBlock   int
	prev      string
	blockDict int64 // where the last block started in the dictionary
	blockPost int64 // where its first term's postings start
	blocks    int
	lastDict  int64
	lastPost  int64
	err       error
}

func newSegWriter(w, dict io.Writer) *segWriter {
	return &segWriter{w: w, dict: dict}
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
	if s.inline {
		s.mem = append(append(s.mem, head...), s.block...)
	} else if _, err := s.dict.Write(head); err != nil {
		s.err = err
	} else if _, err := s.dict.Write(s.block); err != nil {
		s.err = err
	}
	s.dictOff += int64(len(head) + len(s.block))
	s.block, s.inBlock = s.block[:0], 0
}

// finish writes the dictionary (inline), the index and the footer. A
// segWriter that is not inline has its dictionary copied in by the
// caller first (see mergeSegs).
func (s *segWriter) finish(ndocs, first, last int64) error {
	s.flushBlock()
	dictAt := s.off
	if s.inline {
		s.write(s.mem)
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
