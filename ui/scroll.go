package ui

import "fmt"

// paneScroll is the scroll position of a pane whose body is drawn whole and shown
// through a window (world, notes): top is the first line shown. It is clamped when
// drawn, so scrolling past either end just stops there.
type paneScroll struct {
	top    int
	height int // the window's height when last drawn, for paging
	total  int // the body's length when last drawn
}

// window returns the h lines of lines shown from top, clamping top. A pane too short
// for its borders (h below 0, on a terminal a few rows high) shows none.
func (s *paneScroll) window(lines []string, h int) []string {
	h = max(h, 0)
	s.height, s.total = h, len(lines)
	s.top = min(s.top, max(len(lines)-h, 0))
	s.top = max(s.top, 0)
	return lines[s.top:min(s.top+h, len(lines))]
}

// by scrolls n lines down (negative: up).
func (s *paneScroll) by(n int) {
	s.top = max(s.top+n, 0)
	if s.total > 0 {
		s.top = min(s.top, max(s.total-s.height, 0))
	}
}

// page is how far a page key scrolls.
func (s *paneScroll) page() int { return max(s.height-1, 1) }

// status says where the window is when the body does not fit, for the pane's title:
// "lines 1–20 of 45 ↓". Empty when everything is in view.
func (s *paneScroll) status() string {
	if s.total <= s.height || s.height <= 0 {
		return ""
	}
	end := min(s.top+s.height, s.total)
	arrows := ""
	if s.top > 0 {
		arrows += "↑"
	}
	if end < s.total {
		arrows += "↓"
	}
	return fmt.Sprintf("lines %d–%d of %d %s", s.top+1, end, s.total, arrows)
}
