package notes

import (
	"strings"
	"testing"
)

func TestReplaceSection(t *testing.T) {
	t.Parallel()
	doc := "# Notes\n\n## Situation\n\nold situation\nmore\n\n### Detail\n\nkept? no\n\n## Next\n\nold next\n"
	cases := []struct {
		name, doc, section, body, want string
	}{
		{"middle section with subsection", doc, "situation", "new situation",
			"# Notes\n\n## Situation\n\nnew situation\n\n## Next\n\nold next\n"},
		{"last section", doc, "Next", "fly\nmine\n",
			"# Notes\n\n## Situation\n\nold situation\nmore\n\n### Detail\n\nkept? no\n\n## Next\n\nfly\nmine\n"},
		{"absent section is appended", doc, "Lessons", "be patient",
			doc + "\n## Lessons\n\nbe patient\n"},
		{"body repeating its heading", doc, "Next", "## next\n\nfly",
			"# Notes\n\n## Situation\n\nold situation\nmore\n\n### Detail\n\nkept? no\n\n## Next\n\nfly\n"},
		{"heading inside a code fence is not a section", "## A\n\n```\n## B\n```\n\n## B\n\nb\n", "B", "x",
			"## A\n\n```\n## B\n```\n\n## B\n\nx\n"},
		{"closing hashes and spaces", "##  Waiting on ##\n\nold\n## Lessons\nl\n", "waiting on", "nothing",
			"##  Waiting on ##\n\nnothing\n\n## Lessons\nl\n"},
		{"empty body", doc, "Next", "",
			"# Notes\n\n## Situation\n\nold situation\nmore\n\n### Detail\n\nkept? no\n\n## Next\n\n"},
		{"empty document", "", "Next", "go", "## Next\n\ngo\n"},
		{"#hashtag is not a heading", "## A\n\n#tag\n", "A", "b", "## A\n\nb\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReplaceSection(c.doc, c.section, c.body)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
	if _, err := ReplaceSection(doc, "  ", "x"); err == nil {
		t.Error("empty section name accepted")
	}
}

func TestSkeletonHasEverySection(t *testing.T) {
	t.Parallel()
	for _, sec := range Sections {
		if !strings.Contains(Skeleton, "\n## "+sec+"\n") {
			t.Errorf("skeleton lacks ## %s", sec)
		}
	}
}

func TestNotesVersions(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	n, err := s.Notes()
	if err != nil || n.Version != 0 || n.Text != Skeleton {
		t.Fatalf("fresh Notes() = %+v, %v; want the skeleton at version 0", n, err)
	}
	n1, err := s.UpdateSection("Situation", "Broke.", 3)
	if err != nil || n1.Version != 1 || n1.Step != 3 || !strings.Contains(n1.Text, "## Situation\n\nBroke.\n\n## Strategy") {
		t.Fatalf("UpdateSection = %+v, %v", n1, err)
	}
	n2, err := s.SetNotes("# Mine\n", 4)
	if err != nil || n2.Version != 2 || n2.Text != "# Mine\n" {
		t.Fatalf("SetNotes = %+v, %v", n2, err)
	}
	if _, err := s.UpdateSection("", "x", 5); err == nil {
		t.Error("UpdateSection with no section name succeeded")
	}
	hist, err := s.NoteHistory()
	if err != nil || len(hist) != 2 || hist[0].Text != n1.Text || hist[1].Text != n2.Text {
		t.Errorf("NoteHistory() = %+v, %v", hist, err)
	}
}
