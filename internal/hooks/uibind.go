package hooks

import "sync"

type uiWaiters struct {
	mu  sync.Mutex
	fns []func(UI)
}

// WhenUI runs fn with the UI once one is attached: now (on the calling
// goroutine) when one is, else when BindUI attaches one (on BindUI's
// goroutine; fn must not block). Features that start before the front
// end (extensions' session_start handlers) use it so what they show is
// not lost.
func (s *Set) WhenUI(fn func(UI)) {
	s.onUI.mu.Lock()
	if ui := s.UI(); ui != nil {
		s.onUI.mu.Unlock()
		fn(ui)
		return
	}
	s.onUI.fns = append(s.onUI.fns, fn)
	s.onUI.mu.Unlock()
}

func (s *Set) uiBound(ui UI) {
	s.onUI.mu.Lock()
	fns := s.onUI.fns
	s.onUI.fns = nil
	s.onUI.mu.Unlock()
	for _, fn := range fns {
		fn(ui)
	}
}
