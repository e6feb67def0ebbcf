package jsonx

import "bytes"

// Find returns the value of the member named key.
func Find(b []byte, ms []Member, key string) ([]byte, bool) {
	for _, m := range ms {
		if m.Key == key {
			return b[m.ValStart:m.ValEnd], true
		}
	}
	return nil, false
}

// FindString returns the string value of the member named key.
func FindString(b []byte, ms []Member, key string) (string, bool) {
	v, ok := Find(b, ms, key)
	if !ok {
		return "", false
	}
	return StringValue(v)
}

// Rewrite rebuilds the object b (whose members are ms) with the members
// in drop removed, the values in set replaced (or appended at the end, in
// the order of addOrder, when absent), keeping every other member byte for
// byte.
func Rewrite(b []byte, ms []Member, drop []string, set map[string][]byte, addOrder []string) []byte {
	var out bytes.Buffer
	out.Grow(len(b) + 64)
	out.WriteByte('{')
	first := true
	done := map[string]bool{}
	isDropped := func(k string) bool {
		for _, d := range drop {
			if d == k {
				return true
			}
		}
		return false
	}
	for _, m := range ms {
		if isDropped(m.Key) {
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(b[m.KeyStart:m.ValStart])
		if v, ok := set[m.Key]; ok {
			done[m.Key] = true
			out.Write(v)
		} else {
			out.Write(b[m.ValStart:m.ValEnd])
		}
	}
	for _, k := range addOrder {
		if done[k] {
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(AppendString(nil, k))
		out.WriteByte(':')
		out.Write(set[k])
	}
	out.WriteByte('}')
	return out.Bytes()
}
