package capture

import "bytes"

// screen reads the few structural facts capture needs from a terminal's
// raw output: whether bracketed paste is on, and the window titles set.
// Sequences split across reads are put back together.
type screen struct {
	carry []byte // an unfinished escape sequence from the last chunk
	paste bool
}

const maxCarry = 4096

var (
	pasteOn  = []byte("\x1b[?2004h")
	pasteOff = []byte("\x1b[?2004l")
)

// feed reads a chunk of output and returns the titles it set, in order.
func (s *screen) feed(chunk []byte) (titles []string) {
	data := chunk
	if len(s.carry) > 0 {
		data = append(s.carry, chunk...)
		s.carry = s.carry[:0]
	}
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], 0x1b)
		if j < 0 {
			break
		}
		i += j
		rest := data[i:]
		if len(rest) < 2 {
			s.keep(rest)
			break
		}
		switch rest[1] {
		case '[':
			// CSI: parameters and intermediates, then a final byte.
			k := 2
			for k < len(rest) && (rest[k] < 0x40 || rest[k] > 0x7e) {
				k++
			}
			if k == len(rest) {
				s.keep(rest)
				return titles
			}
			seq := rest[:k+1]
			switch {
			case bytes.Equal(seq, pasteOn):
				s.paste = true
			case bytes.Equal(seq, pasteOff):
				s.paste = false
			case seq[k] == 'h' || seq[k] == 'l':
				// A combined private mode set: ESC[?1049;2004h.
				if bytes.HasPrefix(seq, []byte("\x1b[?")) && hasParam(seq[3:k], "2004") {
					s.paste = seq[k] == 'h'
				}
			}
			i += k + 1
		case ']':
			// OSC: ends with BEL or ESC \.
			end, width := -1, 0
			for k := 2; k < len(rest); k++ {
				if rest[k] == 0x07 {
					end, width = k, 1
					break
				}
				if rest[k] == 0x1b && k+1 < len(rest) && rest[k+1] == '\\' {
					end, width = k, 2
					break
				}
			}
			if end < 0 {
				s.keep(rest)
				return titles
			}
			body := rest[2:end]
			if t, ok := bytes.CutPrefix(body, []byte("0;")); ok {
				titles = append(titles, string(t))
			} else if t, ok := bytes.CutPrefix(body, []byte("2;")); ok {
				titles = append(titles, string(t))
			}
			i += end + width
		default:
			i += 2
		}
	}
	return titles
}

// keep carries an unfinished sequence into the next chunk, unless it is
// too long to be one the parser cares about.
func (s *screen) keep(b []byte) {
	if len(b) <= maxCarry {
		s.carry = append(s.carry[:0], b...)
	}
}

func hasParam(params []byte, want string) bool {
	for p := range bytes.SplitSeq(params, []byte(";")) {
		if string(p) == want {
			return true
		}
	}
	return false
}
