package llamacpp

import (
	"errors"
	"strconv"
)

// A /completion answer with n_probs 256..32768 is mostly the top-log-prob
// list (id, token, bytes and logprob per entry): decoding it with
// encoding/json's reflection dominated a routed request's own time. This
// scanner walks the JSON once, without reflection, and keeps only
// completion_probabilities[0].top_logprobs[].{id, logprob}. It checks the
// JSON as it goes; anything it does not expect is an error.

var errTopLogprobs = errors.New("llama.cpp did not return token probabilities")

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) expect(c byte) bool {
	if s.peek() != c {
		return false
	}
	s.i++
	return true
}

// str reads a string and returns its raw bytes (escapes kept; keys
// compared here have none).
func (s *scanner) str() ([]byte, bool) {
	if !s.expect('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return s.b[start : s.i-1], true
		default:
			if s.b[s.i] < 0x20 {
				return nil, false
			}
			s.i++
		}
	}
	return nil, false
}

// num reads a number's text.
func (s *scanner) num() ([]byte, bool) {
	s.ws()
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	return s.b[start:s.i], s.i > start
}

// skip reads any value.
func (s *scanner) skip(depth int) bool {
	if depth > 64 {
		return false
	}
	switch s.peek() {
	case '"':
		_, ok := s.str()
		return ok
	case '{':
		s.i++
		if s.expect('}') {
			return true
		}
		for {
			if _, ok := s.str(); !ok || !s.expect(':') || !s.skip(depth+1) {
				return false
			}
			if s.expect('}') {
				return true
			}
			if !s.expect(',') {
				return false
			}
		}
	case '[':
		s.i++
		if s.expect(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			if s.expect(']') {
				return true
			}
			if !s.expect(',') {
				return false
			}
		}
	case 't', 'f', 'n':
		for _, w := range []string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
				s.i += len(w)
				return true
			}
		}
		return false
	}
	_, ok := s.num()
	return ok
}

// object calls field for each key of an object; field consumes the value.
func (s *scanner) object(field func(key []byte) bool) bool {
	if !s.expect('{') {
		return false
	}
	if s.expect('}') {
		return true
	}
	for {
		k, ok := s.str()
		if !ok || !s.expect(':') || !field(k) {
			return false
		}
		if s.expect('}') {
			return true
		}
		if !s.expect(',') {
			return false
		}
	}
}

// array calls elem for each element; elem consumes it.
func (s *scanner) array(elem func(i int) bool) bool {
	if !s.expect('[') {
		return false
	}
	if s.expect(']') {
		return true
	}
	for i := 0; ; i++ {
		if !elem(i) {
			return false
		}
		if s.expect(']') {
			return true
		}
		if !s.expect(',') {
			return false
		}
	}
}

// parseTopLogprobs reads completion_probabilities[0].top_logprobs and
// returns the log-probability of each of tokens, and whether the list
// holds it.
func parseTopLogprobs(body []byte, tokens []int) ([]float64, []bool, error) {
	s := &scanner{b: body}
	out, has := make([]float64, len(tokens)), make([]bool, len(tokens))
	found := false
	ok := s.object(func(k []byte) bool {
		if string(k) != "completion_probabilities" {
			return s.skip(0)
		}
		return s.array(func(i int) bool {
			if i > 0 {
				return s.skip(0)
			}
			return s.object(func(k []byte) bool {
				if string(k) != "top_logprobs" {
					return s.skip(0)
				}
				found = true
				return s.array(func(int) bool {
					id, lp, hasID, hasLP := 0, 0.0, false, false
					ok := s.object(func(k []byte) bool {
						switch string(k) {
						case "id":
							t, ok := s.num()
							n, err := strconv.Atoi(string(t))
							id, hasID = n, ok && err == nil
							return hasID
						case "logprob":
							t, ok := s.num()
							f, err := strconv.ParseFloat(string(t), 64)
							lp, hasLP = f, ok && err == nil
							return hasLP
						}
						return s.skip(0)
					})
					if ok && hasID && hasLP {
						for j, t := range tokens {
							if t == id && !has[j] {
								out[j], has[j] = lp, true
							}
						}
					}
					return ok
				})
			})
		})
	})
	if !ok || s.peek() != 0 {
		return nil, nil, errors.New("llama.cpp /completion: not the expected JSON")
	}
	if !found {
		return nil, nil, errTopLogprobs
	}
	return out, has, nil
}
