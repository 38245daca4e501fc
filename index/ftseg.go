package index

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// segment is a segment file opened for reading (see ftbuild.go): its
// dictionary's index in memory, the rest read as a query needs it.
type segment struct {
	r       io.ReaderAt
	name    string
	dictAt  int64
	indexAt int64
	ndocs   int64 // the documents gathered (a merge's: at most this many)
	first   int64
	last    int64
	blocks  []segBlock
}

// segBlock is where a dictionary block starts, and its first term.
type segBlock struct {
	first string
	dict  int64 // in the file
	post  int64 // its first term's postings, in the file
}

// segTerm is a term of a segment and where its postings lie.
type segTerm struct {
	term    string
	ndocs   int
	docs    int64 // in the file; its positions follow
	docsLen int
	posLen  int
}

// openSegment opens the segment file at path.
func openSegment(path string) (*segment, *os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("index: full text: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("index: full text: %w", err)
	}
	s, err := readSegment(f, fi.Size(), path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return s, f, nil
}

// readSegment reads the footer and the dictionary's index of the segment
// of size bytes r holds; name is for errors.
func readSegment(r io.ReaderAt, size int64, name string) (*segment, error) {
	bad := func(why string) error {
		return fmt.Errorf("index: full text: %s: %w (%s)", name, errSegment, why)
	}
	if size < int64(ftFooterSize) {
		return nil, bad("too short")
	}
	var foot [ftFooterSize]byte
	if _, err := r.ReadAt(foot[:], size-int64(ftFooterSize)); err != nil {
		return nil, fmt.Errorf("index: full text: %s: %w", name, err)
	}
	if string(foot[40:]) != ftMagic {
		return nil, bad("no footer")
	}
	s := &segment{
		r: r, name: name,
		dictAt:  int64(binary.LittleEndian.Uint64(foot[0:])),
		indexAt: int64(binary.LittleEndian.Uint64(foot[8:])),
		ndocs:   int64(binary.LittleEndian.Uint64(foot[16:])),
		first:   int64(binary.LittleEndian.Uint64(foot[24:])),
		last:    int64(binary.LittleEndian.Uint64(foot[32:])),
	}
	end := size - int64(ftFooterSize)
	if s.dictAt < 0 || s.dictAt > s.indexAt || s.indexAt > end {
		return nil, bad("its parts overlap")
	}
	idx := make([]byte, end-s.indexAt)
	if _, err := r.ReadAt(idx, s.indexAt); err != nil {
		return nil, fmt.Errorf("index: full text: %s: %w", name, err)
	}
	d := varints{b: idx}
	n := d.uint()
	if n > uint64(len(idx)) {
		return nil, bad("its index is damaged")
	}
	s.blocks = make([]segBlock, 0, n)
	dict, post := s.dictAt, int64(0)
	for range n {
		l := d.uint()
		t := d.bytes(l)
		dict += int64(d.uint())
		post += int64(d.uint())
		if d.err || dict > s.indexAt || post > s.dictAt {
			return nil, bad("its index is damaged")
		}
		s.blocks = append(s.blocks, segBlock{first: string(t), dict: dict, post: post})
	}
	if d.err || len(d.b) != 0 {
		return nil, bad("its index is damaged")
	}
	return s, nil
}

// block reads dictionary block i.
func (s *segment) block(i int) ([]byte, error) {
	end := s.indexAt
	if i+1 < len(s.blocks) {
		end = s.blocks[i+1].dict
	}
	b := make([]byte, end-s.blocks[i].dict)
	if _, err := s.r.ReadAt(b, s.blocks[i].dict); err != nil {
		return nil, fmt.Errorf("index: full text: %s: %w", s.name, err)
	}
	return b, nil
}

// terms calls fn with each term of the segment from the block where
// from would be, in order, until fn returns false.
func (s *segment) terms(from string, fn func(segTerm) bool) error {
	i := sort.Search(len(s.blocks), func(i int) bool { return s.blocks[i].first > from }) - 1
	for i = max(i, 0); i < len(s.blocks); i++ {
		more, err := s.blockTerms(i, fn)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// blockTerms calls fn with each term of block i, in order, until fn
// returns false (more is then false).
func (s *segment) blockTerms(i int, fn func(segTerm) bool) (more bool, err error) {
	b, err := s.block(i)
	if err != nil {
		return false, err
	}
	d := varints{b: b}
	n := d.uint()
	post := s.blocks[i].post
	var t []byte
	for range n {
		shared, rest := d.uint(), d.uint()
		if shared > uint64(len(t)) {
			d.err = true
			break
		}
		t = append(t[:shared], d.bytes(rest)...)
		st := segTerm{ndocs: int(d.uint()), docs: post, docsLen: int(d.uint()), posLen: int(d.uint())}
		if d.err || st.docs+int64(st.docsLen)+int64(st.posLen) > s.dictAt {
			d.err = true
			break
		}
		post += int64(st.docsLen + st.posLen)
		st.term = string(t)
		if !fn(st) {
			return false, nil
		}
	}
	if d.err || len(d.b) != 0 {
		return false, fmt.Errorf("index: full text: %s: %w (block %d is damaged)", s.name, errSegment, i)
	}
	return true, nil
}

// lookup finds term t.
func (s *segment) lookup(t string) (segTerm, bool, error) {
	var found segTerm
	ok := false
	err := s.terms(t, func(st segTerm) bool {
		if st.term == t {
			found, ok = st, true
		}
		return st.term < t
	})
	return found, ok, err
}

// prefixed calls fn with each term that starts with p.
func (s *segment) prefixed(p string, fn func(segTerm)) error {
	return s.terms(p, func(st segTerm) bool {
		if strings.HasPrefix(st.term, p) {
			fn(st)
			return true
		}
		return st.term < p
	})
}

// postings reads a term's postings: its documents and their counts, and
// its positions as they are stored.
func (s *segment) postings(st segTerm) (plist, error) {
	b := make([]byte, st.docsLen+st.posLen)
	if _, err := s.r.ReadAt(b, st.docs); err != nil {
		return plist{}, fmt.Errorf("index: full text: %s: %w", s.name, err)
	}
	p, err := decodePostings(b[:st.docsLen], b[st.docsLen:], st.ndocs)
	if err != nil {
		return plist{}, fmt.Errorf("index: full text: %s: term %q: %w", s.name, st.term, err)
	}
	return p, nil
}

// docs reads a term's documents alone, in increasing order (not its
// positions).
func (s *segment) docs(st segTerm) ([]int64, error) {
	b := make([]byte, st.docsLen)
	if _, err := s.r.ReadAt(b, st.docs); err != nil {
		return nil, fmt.Errorf("index: full text: %s: %w", s.name, err)
	}
	docs := make([]int64, 0, st.ndocs)
	d := varints{b: b}
	var doc int64
	for range st.ndocs {
		doc += int64(d.uint())
		if d.uint() == 0 || d.err {
			return nil, fmt.Errorf("index: full text: %s: term %q: %w", s.name, st.term, errSegment)
		}
		docs = append(docs, doc)
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("index: full text: %s: term %q: %w", s.name, st.term, errSegment)
	}
	return docs, nil
}

// plist is a term's postings decoded: its documents in increasing order,
// and each one's positions (pos[at[i]:at[i+1]], as stored: the first as
// it is, the others less the one before).
type plist struct {
	docs []int64
	at   []int32
	pos  []byte
}

// decodePostings decodes a term's documents and splits its positions.
func decodePostings(docs, pos []byte, n int) (plist, error) {
	p := plist{docs: make([]int64, 0, n), at: make([]int32, 0, n+1), pos: pos}
	d := varints{b: docs}
	ps := varints{b: pos}
	var doc int64
	for range n {
		doc += int64(d.uint())
		count := d.uint()
		if d.err || count == 0 || count > uint64(len(pos)) {
			return plist{}, errSegment
		}
		p.docs = append(p.docs, doc)
		p.at = append(p.at, int32(len(pos)-len(ps.b)))
		for range count {
			ps.uint()
		}
	}
	if d.err || ps.err || len(d.b) != 0 || len(ps.b) != 0 {
		return plist{}, errSegment
	}
	p.at = append(p.at, int32(len(pos)))
	return p, nil
}

// places appends document i's positions to dst.
func (p *plist) places(dst []int32, i int) []int32 {
	d := varints{b: p.pos[p.at[i]:p.at[i+1]]}
	at := int32(0)
	for k := 0; len(d.b) > 0; k++ {
		v := int32(d.uint())
		if k == 0 {
			at = v
		} else {
			at += v
		}
		dst = append(dst, at)
	}
	return dst
}

// varints reads unsigned varints from b; err is set, and zeros read,
// once one is damaged or b runs out.
type varints struct {
	b   []byte
	err bool
}

func (d *varints) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *varints) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.err, d.b = true, nil
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

// mergeSegs writes to w one segment holding what segs hold, but the
// documents keep refuses (nil keeps all); dict is a scratch file for
// the new segment's dictionary, which follows its postings. Each
// document is in one segment of segs. Each segment is read once, in
// order; a term's postings are copied as they are where its segments'
// documents do not interleave and none is dropped (the usual merge, of
// segments written one after the other), and decoded otherwise.
func mergeSegs(w io.Writer, dict *os.File, segs []*segment, keep func(int64) bool) error {
	its := make(termHeap, 0, len(segs))
	var ndocs int64
	for _, s := range segs {
		ndocs += s.ndocs
		it := &termIter{seg: s, post: bufio.NewReaderSize(io.NewSectionReader(s.r, 0, s.dictAt), 64<<10)}
		if err := it.advance(); err != nil {
			return err
		}
		if it.ok {
			its = append(its, it)
		}
	}
	heap.Init(&its)
	sw := &segWriter{w: w, dict: bufio.NewWriterSize(dict, 256<<10)}
	var (
		first, last int64
		docs, pos   []byte
		parts       []*termIter
	)
	for len(its) > 0 {
		t := its[0].cur.term
		parts = parts[:0]
		for len(its) > 0 && its[0].cur.term == t {
			parts = append(parts, heap.Pop(&its).(*termIter))
		}
		// By their segments' first documents (the heap's order for
		// equal terms).
		docs, pos = docs[:0], pos[:0]
		n, lo, hi, err := mergeTerm(parts, keep, &docs, &pos)
		if err != nil {
			return err
		}
		for _, it := range parts {
			if err := it.advance(); err != nil {
				return err
			}
			if it.ok {
				heap.Push(&its, it)
			}
		}
		if n == 0 {
			continue
		}
		if first == 0 || lo < first {
			first = lo
		}
		last = max(last, hi)
		if err := sw.term(t, n, docs, pos); err != nil {
			return err
		}
	}
	return sw.finish(func() (io.Reader, error) {
		_, err := dict.Seek(0, io.SeekStart)
		return dict, err
	}, ndocs, first, last)
}

// mergeTerm appends to docs and pos the postings of one term in parts
// (ordered by their segments' first documents), and says how many
// documents it kept, the smallest and the largest.
func mergeTerm(parts []*termIter, keep func(int64) bool, docs, pos *[]byte) (n int, lo, hi int64, err error) {
	apart := keep == nil
	for i := 1; i < len(parts) && apart; i++ {
		apart = parts[i-1].seg.last < parts[i].seg.first
	}
	if apart {
		// Copied: only each part's first document is written anew (less
		// the previous part's last).
		var prev int64
		for _, it := range parts {
			d := varints{b: it.docs}
			first := int64(d.uint())
			rest := d.b
			if d.err || first <= prev {
				return 0, 0, 0, fmt.Errorf("index: full text: %s: term %q: %w", it.seg.name, it.cur.term, errSegment)
			}
			// The part's last document: its ids, less the previous,
			// summed.
			at := first
			for len(d.b) > 0 {
				d.uint() // the count
				if len(d.b) == 0 {
					break
				}
				at += int64(d.uint())
			}
			if d.err {
				return 0, 0, 0, fmt.Errorf("index: full text: %s: term %q: %w", it.seg.name, it.cur.term, errSegment)
			}
			if lo == 0 {
				lo = first
			}
			*docs = binary.AppendUvarint(*docs, uint64(first-prev))
			*docs = append(*docs, rest...)
			*pos = append(*pos, it.pos...)
			n += it.cur.ndocs
			prev, hi = at, at
		}
		return n, lo, hi, nil
	}
	lists := make([]plist, len(parts))
	for j, it := range parts {
		if lists[j], err = decodePostings(it.docs, it.pos, it.cur.ndocs); err != nil {
			return 0, 0, 0, fmt.Errorf("index: full text: %s: term %q: %w", it.seg.name, it.cur.term, err)
		}
	}
	var prev int64
	k := make([]int, len(lists)) // each list's next document
	for {
		best := -1
		for j := range lists {
			if k[j] < len(lists[j].docs) && (best < 0 || lists[j].docs[k[j]] < lists[best].docs[k[best]]) {
				best = j
			}
		}
		if best < 0 {
			break
		}
		p, i := &lists[best], k[best]
		k[best]++
		doc := p.docs[i]
		if doc == prev {
			return 0, 0, 0, fmt.Errorf("index: full text: document %d is in two segments", doc)
		}
		if keep != nil && !keep(doc) {
			continue
		}
		places := p.pos[p.at[i]:p.at[i+1]]
		count := 0
		for _, c := range places {
			if c < 0x80 { // a varint's last byte
				count++
			}
		}
		*docs = binary.AppendUvarint(*docs, uint64(doc-prev))
		*docs = binary.AppendUvarint(*docs, uint64(count))
		*pos = append(*pos, places...)
		prev = doc
		n++
		if lo == 0 {
			lo = doc
		}
		hi = doc
	}
	return n, lo, hi, nil
}

// termIter walks a segment's terms in order, a block at a time, reading
// each one's postings (docs, pos) from its postings, which it reads
// through once.
type termIter struct {
	seg   *segment
	post  *bufio.Reader
	block int
	terms []segTerm
	cur   segTerm
	ok    bool
	buf   []byte
	docs  []byte
	pos   []byte
}

// advance moves to the next term; ok is false past the last.
func (it *termIter) advance() error {
	for len(it.terms) == 0 {
		if it.block >= len(it.seg.blocks) {
			it.ok = false
			return nil
		}
		it.block++
		it.terms = it.terms[:0]
		_, err := it.seg.blockTerms(it.block-1, func(st segTerm) bool {
			it.terms = append(it.terms, st)
			return true
		})
		if err != nil {
			return err
		}
	}
	it.cur, it.terms, it.ok = it.terms[0], it.terms[1:], true
	n := it.cur.docsLen + it.cur.posLen
	if cap(it.buf) < n {
		it.buf = make([]byte, n)
	}
	it.buf = it.buf[:n]
	if _, err := io.ReadFull(it.post, it.buf); err != nil {
		return fmt.Errorf("index: full text: %s: %w", it.seg.name, err)
	}
	it.docs, it.pos = it.buf[:it.cur.docsLen], it.buf[it.cur.docsLen:]
	return nil
}

// termHeap orders term iterators by their terms, then by their segments'
// first documents.
type termHeap []*termIter

func (h termHeap) Len() int { return len(h) }
func (h termHeap) Less(i, j int) bool {
	if h[i].cur.term != h[j].cur.term {
		return h[i].cur.term < h[j].cur.term
	}
	return h[i].seg.first < h[j].seg.first
}
func (h termHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *termHeap) Push(x any)   { *h = append(*h, x.(*termIter)) }
func (h *termHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	*h = old[:len(old)-1]
	return it
}
