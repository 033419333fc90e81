package arena

import (
	"slices"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// The catalogue: names in order, kinds, dry runs; every schema is a well-formed object
// schema that refuses unknown properties, describes its properties, and lists its closed
// sets.
func TestCatalogValidates(t *testing.T) {
	want := `status read
messages read
member read
battle read
market read
send_message act dry
join_battle act dry
buy act dry
sell act dry
work act dry
consume act dry
leave_community act dry
join_community act dry`
	var got []string
	for _, tl := range Catalog() {
		line := tl.Name + " " + tl.Kind.String()
		if tl.DryRun {
			line += " dry"
		}
		got = append(got, line)
		if tl.Run == nil || tl.DryRun != (tl.Simulate != nil) || tl.Description == "" {
			t.Errorf("%s: built without a handler, a description or its dry run", tl.Name)
		}
		s := tl.Schema
		if _, err := s.Resolve(nil); err != nil {
			t.Errorf("%s: schema does not resolve: %v", tl.Name, err)
		}
		if s.Type != "object" || s.AdditionalProperties == nil {
			t.Errorf("%s: schema is not a closed object: type %q", tl.Name, s.Type)
		}
		for name, p := range s.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", tl.Name, name)
			}
		}
	}
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("catalogue:\n%s\nwant:\n%s", g, want)
	}
	tools := game.Tools(Catalog())
	enums := map[string][]string{
		"buy.item": {"apple", "bread", "stew", "herbs", "iron"}, "consume.item": {"apple", "bread", "stew"},
		"work.job": {"farm", "courier", "guard", "forge"}, "join_battle.side": Communities,
		"join_community.community": Communities, "messages.channel": {"direct", "community"},
	}
	for path, values := range enums {
		tool, prop, _ := strings.Cut(path, ".")
		tl, _ := tools.Find(tool)
		var got []string
		for _, v := range tl.Schema.Properties[prop].Enum {
			got = append(got, v.(string))
		}
		if !slices.Equal(got, values) {
			t.Errorf("%s enum %v, want %v", path, got, values)
		}
	}
}

// Arguments are checked by the schemas before the game sees them: a value outside an
// enum, a number out of bounds, a missing field, an unknown one.
func TestSchemasRefuseBadArguments(t *testing.T) {
	tools := game.Tools(Catalog())
	for _, c := range []struct{ tool, args, want string }{
		{ToolBuy, `{"item":"Bread","quantity":1}`, "did you mean bread"},
		{ToolBuy, `{"item":"bread","quantity":0}`, "quantity"},
		{ToolConsume, `{"item":"iron"}`, "item"},
		{ToolWork, `{"job":"forge","shifts":5}`, "shifts"},
		{ToolJoinBattle, `{"battle":"battle-1"}`, "energy"},
		{ToolJoinBattle, `{"battle":"battle-1","energy":2}`, "energy"},
		{ToolSendMessage, `{"to":"Mara","text":"hi","cc":"Oren"}`, "cc"},
		{ToolMember, `{}`, "name"},
	} {
		tl, _ := tools.Find(c.tool)
		_, err := game.ValidateTool(tl, []byte(c.args))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want a problem with %q", c.tool, c.args, err, c.want)
		}
	}
	for _, c := range []struct{ tool, args string }{
		{ToolStatus, ``}, {ToolMessages, `{"member":"Mara","channel":"direct","unread_only":true,"limit":3}`},
		{ToolBattle, `{}`}, {ToolSendMessage, `{"to":"channel","text":"hi","reply_to":3}`},
		{ToolJoinBattle, `{"battle":"battle-456","side":"Tide","energy":20}`}, {ToolBuy, `{"item":"stew","quantity":2,"max_price":15}`},
		{ToolConsume, `{"item":"apple"}`}, {ToolLeaveCommunity, `{}`}, {ToolJoinCommunity, `{"community":"Thorn"}`},
	} {
		tl, _ := tools.Find(c.tool)
		if _, err := game.ValidateTool(tl, []byte(c.args)); err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		}
	}
}
