package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/coplayhq/coplay/game"
)

// Bounds of the startup line about skipped operations: each reason is cut to its
// first clause and to skippedReasonMax characters, and operations are named until the
// line would pass skippedLineMax characters; the rest are counted ("and 3 more").
const (
	skippedReasonMax = 80
	skippedLineMax   = 300
)

// skippedLine is the one line said at startup when the game could not make a tool of
// some of what it offers (game.Skipper), e.g.
//
//	3 operations skipped: uploadAvatar (file field file is required, and file uploads are not supported), PUT /replays/{id} (request body is application/octet-stream), brokenPath (path parameter {x} is not declared in parameters); `coplay tools` lists them
//
// and "" when it skips nothing.
func skippedLine(g game.Game) string {
	s, ok := g.(game.Skipper)
	if !ok {
		return ""
	}
	skipped := s.Skipped()
	if len(skipped) == 0 {
		return ""
	}
	head := plural(len(skipped), "operation") + " skipped: "
	tail := "; `coplay tools` lists them"
	if len(skipped) == 1 {
		tail = "; `coplay tools` lists it"
	}
	var items []string
	used := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail)
	for i, sk := range skipped {
		item := sk.Name
		if r := shortReason(sk.Reason); r != "" {
			item += " (" + r + ")"
		}
		more := ""
		if rest := len(skipped) - i - 1; rest > 0 {
			more = fmt.Sprintf(", and %d more", rest) // room kept for it, should it be needed
		}
		n := utf8.RuneCountInString(item) + 2
		if i > 0 && used+n+utf8.RuneCountInString(more) > skippedLineMax {
			items = append(items, fmt.Sprintf("and %d more", len(skipped)-i))
			break
		}
		items = append(items, item)
		used += n
	}
	return head + strings.Join(items, ", ") + tail
}

// shortReason is a reason's first clause (up to a ';'), on one line and at most
// skippedReasonMax characters.
func shortReason(reason string) string {
	reason, _, _ = strings.Cut(reason, ";")
	reason = strings.Join(strings.Fields(reason), " ")
	if utf8.RuneCountInString(reason) > skippedReasonMax {
		reason = strings.TrimRight(string([]rune(reason)[:skippedReasonMax-1]), " ,.") + "…"
	}
	return reason
}
