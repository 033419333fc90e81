package notes

import (
	"errors"
	"strings"
)

// heading parses an ATX heading line ("## Title ##") into its level and
// title; level 0 means the line is not a heading.
func heading(line string) (level int, title string) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 { // four spaces make a code block, not a heading
		return 0, ""
	}
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
		return 0, ""
	}
	title = strings.TrimSpace(t[level:])
	if trimmed := strings.TrimRight(title, "#"); trimmed != title && (trimmed == "" || strings.HasSuffix(trimmed, " ")) {
		title = strings.TrimSpace(trimmed)
	}
	return level, title
}

// fence reports whether line opens or closes a fenced code block, inside
// which '#' lines are not headings.
func fence(line string) bool {
	t := strings.TrimLeft(line, " ")
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}

// ReplaceSection returns doc with the body of its "## section" heading
// (case-insensitive) replaced by body, or with the section appended when
// there is none. The body runs to the next heading of level 1 or 2.
func ReplaceSection(doc, section, body string) (string, error) {
	section = strings.TrimSpace(section)
	if section == "" {
		return "", errors.New("notes: section name is empty")
	}
	body = stripOwnHeading(body, section)
	lines := strings.Split(doc, "\n")
	start, end := -1, len(lines)
	inFence := false
	for i, line := range lines {
		if fence(line) {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		level, title := heading(line)
		if level == 0 || level > 2 {
			continue
		}
		if start >= 0 {
			end = i
			break
		}
		if level == 2 && strings.EqualFold(title, section) {
			start = i
		}
	}
	if start < 0 {
		doc = strings.TrimRight(doc, "\n")
		if doc != "" {
			doc += "\n\n"
		}
		return doc + "## " + section + "\n\n" + body + "\n", nil
	}
	var sb strings.Builder
	sb.WriteString(strings.Join(lines[:start+1], "\n"))
	sb.WriteString("\n\n")
	if body != "" {
		sb.WriteString(body)
		sb.WriteString("\n")
	}
	if end < len(lines) {
		sb.WriteString("\n")
		sb.WriteString(strings.Join(lines[end:], "\n"))
	}
	return sb.String(), nil
}

// stripOwnHeading trims body and drops a leading "## section" line that
// repeats the heading being replaced.
func stripOwnHeading(body, section string) string {
	body = strings.Trim(body, "\n")
	first, rest, _ := strings.Cut(strings.TrimLeft(body, "\n"), "\n")
	if level, title := heading(first); level > 0 && strings.EqualFold(title, section) {
		body = rest
	}
	return strings.TrimSpace(body)
}
