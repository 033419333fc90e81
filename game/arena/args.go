package arena

import (
	"github.com/coplayhq/coplay/game"
	"github.com/google/jsonschema-go/jsonschema"
)

// Enumerated argument types, so that the schemas list the closed sets.
type (
	itemName      string // what the market trades
	foodName      string // what can be eaten
	jobName       string // work on offer
	communityName string // a community
	channelFilter string // messages' filter: direct or community
)

// Argument types of the tools.
type (
	noArgs struct{}

	messagesArgs struct {
		Member     string        `json:"member,omitempty" jsonschema:"only messages from or to this member"`
		Channel    channelFilter `json:"channel,omitempty"`
		UnreadOnly bool          `json:"unread_only,omitempty" jsonschema:"only messages not read yet"`
		Limit      int           `json:"limit,omitempty" jsonschema:"most messages to show (default 10)"`
	}

	memberArgs struct {
		Name string `json:"name" jsonschema:"the member's name, e.g. Mara"`
	}

	battleArgs struct {
		ID string `json:"id,omitempty" jsonschema:"a battle id such as battle-456; omit to list open battles and the latest results"`
	}

	sendArgs struct {
		To      string `json:"to" jsonschema:"a member's name, or channel for your community's channel"`
		Text    string `json:"text" jsonschema:"what to say (at most 280 characters)"`
		ReplyTo int    `json:"reply_to,omitempty" jsonschema:"the id of the message this answers"`
	}

	joinBattleArgs struct {
		Battle string        `json:"battle" jsonschema:"the battle id, e.g. battle-456"`
		Side   communityName `json:"side,omitempty"`
		Energy int           `json:"energy" jsonschema:"energy to commit (at least 5); it is spent"`
	}

	buyArgs struct {
		Item     itemName `json:"item"`
		Quantity int      `json:"quantity" jsonschema:"units to buy"`
		MaxPrice int      `json:"max_price,omitempty" jsonschema:"refuse if the unit price is now above this"`
	}

	sellArgs struct {
		Item     itemName `json:"item"`
		Quantity int      `json:"quantity" jsonschema:"units to sell"`
		MinPrice int      `json:"min_price,omitempty" jsonschema:"refuse if the market now pays less than this a unit"`
	}

	workArgs struct {
		Job    jobName `json:"job"`
		Shifts int     `json:"shifts" jsonschema:"shifts of 10 game minutes, 1 to 4"`
	}

	consumeArgs struct {
		Item     foodName `json:"item"`
		Quantity int      `json:"quantity,omitempty" jsonschema:"units to eat (default 1)"`
	}

	joinCommunityArgs struct {
		Community communityName `json:"community"`
	}
)

// Enum values.
var (
	channelFilters = []channelFilter{"direct", "community"}
)

// enums are the schema options of every tool: each closed set's values.
func enums() []game.SchemaOption {
	var items []itemName
	var foods []foodName
	for _, it := range Items() {
		items = append(items, itemName(it.Name))
		if it.Food > 0 {
			foods = append(foods, foodName(it.Name))
		}
	}
	var jobs []jobName
	for _, j := range Jobs() {
		jobs = append(jobs, jobName(j.Name))
	}
	var comms []communityName
	for _, c := range Communities {
		comms = append(comms, communityName(c))
	}
	return []game.SchemaOption{
		game.WithEnum("a market item", items...),
		game.WithEnum("a food you hold", foods...),
		game.WithEnum("the job: farm, courier, guard or forge (see the rules for pay and energy)", jobs...),
		game.WithEnum("a community", comms...),
		game.WithEnum("direct: to and from you; community: your community's channel", channelFilters...),
	}
}

// bounds sets the least and the most of an integer property.
func bounds(property string, lo, hi float64) func(*jsonschema.Schema) *jsonschema.Schema {
	return func(s *jsonschema.Schema) *jsonschema.Schema {
		s = game.Min(s, property, lo)
		if hi > lo {
			s.Properties[property].Maximum = &hi
		}
		return s
	}
}
