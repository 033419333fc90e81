package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A resource update whose _meta carries a coplay trigger (a served world's) is that
// trigger, cut to size and stamped with this machine's time; without one, or with one
// that has no type, it is not.
func TestMetaTriggerIsTheServersTrigger(t *testing.T) {
	tr, ok := metaTrigger(sdk.Meta{TriggerMeta: map[string]any{
		"type": "message.received", "subject": "Heron", "text": "Heron: " + strings.Repeat("hi ", 400), "time": "2001-01-01T00:00:00Z"}})
	if !ok || tr.Type != "message.received" || tr.Subject != "Heron" || !strings.HasPrefix(tr.Text, "Heron: hi") {
		t.Fatalf("trigger %+v ok %v", tr, ok)
	}
	if len(tr.Text) > maxTriggerText || tr.Time.Year() == 2001 {
		t.Errorf("text of %d bytes, time %v: want at most %d and now", len(tr.Text), tr.Time, maxTriggerText)
	}
	for _, meta := range []sdk.Meta{nil, {"other": 1}, {TriggerMeta: "text"}, {TriggerMeta: map[string]any{"text": "no type"}}} {
		if tr, ok := metaTrigger(meta); ok {
			t.Errorf("meta %v read as trigger %+v", meta, tr)
		}
	}
}
