package hooks

import "sync"

// Notice is a short message a feature wants the person to see (a harness
// block, Laya falling back to its rules). Front ends that show transient
// notices subscribe; the others ignore them.
type Notice struct {
	Source string
	Text   string
}

type noticeSubs struct {
	mu   sync.Mutex
	next int
	subs map[int]func(Notice)
}

// Notify delivers a notice to the subscribers, from the calling goroutine
// (subscribers must not block). Empty text is dropped.
func (s *Set) Notify(source, text string) {
	if text == "" {
		return
	}
	s.notices.mu.Lock()
	fns := make([]func(Notice), 0, len(s.notices.subs))
	for i := 0; i < s.notices.next; i++ {
		if fn, ok := s.notices.subs[i]; ok {
			fns = append(fns, fn)
		}
	}
	s.notices.mu.Unlock()
	for _, fn := range fns {
		fn(Notice{Source: source, Text: text})
	}
}

// SubscribeNotices delivers every notice to fn until the returned func is
// called.
func (s *Set) SubscribeNotices(fn func(Notice)) (unsubscribe func()) {
	s.notices.mu.Lock()
	defer s.notices.mu.Unlock()
	if s.notices.subs == nil {
		s.notices.subs = map[int]func(Notice){}
	}
	id := s.notices.next
	s.notices.next++
	s.notices.subs[id] = fn
	return func() {
		s.notices.mu.Lock()
		delete(s.notices.subs, id)
		s.notices.mu.Unlock()
	}
}
