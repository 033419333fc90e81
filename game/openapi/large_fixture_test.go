package openapi

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/coplayhq/coplay/game"
)

// The large fixture, testdata/openapi/large, is the API of a fictional board-game
// platform: 190 operations over 20 tags (and 2 untagged), split into an openapi.yaml,
// one path file per tag and shared components, with JSON, text, url-encoded and multipart bodies and
// streaming (application/x-ndjson) answers. It is for benchmarks of large catalogues.
// largeFixture below generates it and the files are committed; TestLargeFixture checks
// that they are what it writes. After changing the generator, write them again with
//
//	go test ./game/openapi -run TestLargeFixture -write-large
var writeLarge = flag.Bool("write-large", false, "write testdata/openapi/large again from its generator")

// largeOperations is how many operations the large fixture has.
const largeOperations = 190

// lfField is a parameter or a body field of the large fixture.
type lfField struct {
	Name, Type, Desc string
	Enum             []string // a string's closed set
	Min, Max         string   // a number's or a string's bounds ("" for none)
	Items            string   // an array's item type
	Required         bool
}

// lfAction is an operation on one item beyond reading, creating, changing and deleting it.
type lfAction struct {
	Name, Summary, Desc string
	Method              string // POST unless set
	Body                string // "", "json", "form", "multipart" or "text"
	Fields              []lfField
	Query               []lfField
	Stream              bool // answers application/x-ndjson
}

// lfResource is a kind of thing the platform keeps: its list, item, create, change and
// delete operations (only list and item when Create is ""), a stream of them, a text
// lookup of several by ids, and its actions.
type lfResource struct {
	Tag, Path       string // the tag, the path segment under /api
	Name, Names     string // for operationIds: Game, Games
	One, Many       string // in prose: game, games
	Desc            string
	ID              string // the id parameter's name
	IDPattern       string
	Fields          []lfField
	Create          string // "json" or "form"; "" for a resource only read
	Sort            []string
	Export, ByIDs   bool
	Actions         []lfAction
	ExtraReadParams []lfField // filters of the list
}

var (
	lfSpeed   = []string{"ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"}
	lfVariant = []string{"standard", "chess960", "crazyhouse", "antichess", "atomic", "horde", "kingOfTheHill", "racingKings", "threeCheck"}
	lfColor   = []string{"white", "black", "random"}
)

func lfResources() []lfResource {
	str := func(name, desc string) lfField { return lfField{Name: name, Type: "string", Desc: desc} }
	boolean := func(name, desc string) lfField { return lfField{Name: name, Type: "boolean", Desc: desc} }
	integer := func(name, min, max, desc string) lfField {
		return lfField{Name: name, Type: "integer", Min: min, Max: max, Desc: desc}
	}
	enum := func(name string, values []string, desc string) lfField {
		return lfField{Name: name, Type: "string", Enum: values, Desc: desc}
	}
	list := func(name, items, desc string) lfField {
		return lfField{Name: name, Type: "array", Items: items, Desc: desc}
	}
	req := func(f lfField) lfField { f.Required = true; return f }
	return []lfResource{
		{Tag: "games", Path: "games", Name: "Game", Names: "Games", One: "game", Many: "games", ID: "gameId", IDPattern: "^[A-Za-z0-9]{8}$",
			Desc: "A game between two players, finished or still being played, with its moves and clocks.",
			Fields: []lfField{
				boolean("rated", "Whether the game changes the players' ratings."),
				req(enum("speed", lfSpeed, "How fast the game is played, from its clock.")),
				enum("variant", lfVariant, "The rules the game is played by."),
				str("moves", "The moves in coordinate notation, separated by spaces."),
				integer("clockLimit", "0", "10800", "The clock's start, in seconds."),
				integer("clockIncrement", "0", "180", "Seconds added after each move."),
			},
			Create: "json", Sort: []string{"createdAt", "lastMoveAt", "rating"}, Export: true, ByIDs: true,
			ExtraReadParams: []lfField{enum("perfType", lfSpeed, "Only games of this speed."), boolean("ongoing", "Only games still being played.")},
			Actions: []lfAction{
				{Name: "abort", Summary: "Abort a game before the second move.", Desc: "An aborted game counts for nobody. After both players have moved, resign instead."},
				{Name: "rematch", Summary: "Offer or accept a rematch.", Desc: "Offers the same game with the colours swapped; when the opponent has offered one already, accepts it."},
			}},
		{Tag: "board", Path: "board/games", Name: "BoardGame", Names: "BoardGames", One: "board game", Many: "board games", ID: "gameId", IDPattern: "^[A-Za-z0-9]{8}$",
			Desc:   "A game you play move by move through the board API, with its chat.",
			Fields: []lfField{req(enum("color", lfColor, "The colour you play.")), enum("variant", lfVariant, "The rules of the game."), integer("clockLimit", "0", "10800", "The clock's start, in seconds.")},
			Export: true,
			Actions: []lfAction{
				{Name: "move", Summary: "Make a move in a game you play.", Desc: "The move is checked against the position; an illegal move is refused and nothing changes.",
					Query: []lfField{req(lfField{Name: "uci", Type: "string", Desc: "The move in coordinate notation, e.g. e2e4 or e7e8q.", Min: "4", Max: "5"}), boolean("offeringDraw", "Offer (true) or decline (false) a draw with the move.")}},
				{Name: "chat", Summary: "Write in a game's chat.", Desc: "Your opponent reads the player room; the spectators the spectator room.", Body: "form",
					Fields: []lfField{req(enum("room", []string{"player", "spectator"}, "Who reads it.")), req(lfField{Name: "text", Type: "string", Max: "140", Desc: "What to say."})}},
				{Name: "resign", Summary: "Resign a game you play.", Desc: "The game ends at once and your opponent wins."},
				{Name: "claimVictory", Summary: "Claim the win when your opponent has left the game.", Desc: "Only possible after the opponent has been gone for the time the platform allows."},
				{Name: "offerTakeback", Summary: "Ask to take your last move back.", Desc: "Your opponent may accept or decline; declining costs nothing.", Query: []lfField{req(boolean("accept", "true to ask or accept, false to cancel or decline."))}},
			}},
		{Tag: "challenges", Path: "challenges", Name: "Challenge", Names: "Challenges", One: "challenge", Many: "challenges", ID: "challengeId",
			Desc: "An invitation to play, waiting for the other player to accept or decline it.",
			Fields: []lfField{
				req(str("destUser", "The player challenged.")),
				boolean("rated", "Whether the game changes ratings."),
				integer("clockLimit", "0", "10800", "The clock's start, in seconds; leave out with clockIncrement for a correspondence game."),
				integer("clockIncrement", "0", "60", "Seconds added after each move."),
				integer("days", "1", "14", "Days per move, for a game without a clock."),
				enum("color", lfColor, "The colour you play."),
				list("rules", "string", "Extra rules: noAbort, noRematch, noGiveTime, noClaimWin."),
			},
			Create: "form", Sort: []string{"createdAt"},
			Actions: []lfAction{
				{Name: "accept", Summary: "Accept a challenge you received.", Desc: "The game starts at once; it appears among your ongoing games."},
				{Name: "decline", Summary: "Decline a challenge you received.", Desc: "The challenger sees the reason you give.", Body: "form",
					Fields: []lfField{enum("reason", []string{"generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual", "variant"}, "Why, in words the challenger reads.")}},
				{Name: "cancel", Summary: "Cancel a challenge you sent.", Desc: "Also aborts the game if it was accepted and no move was made yet."},
			}},
		{Tag: "arena", Path: "tournaments", Name: "Tournament", Names: "Tournaments", One: "arena tournament", Many: "arena tournaments", ID: "tournamentId", IDPattern: "^[A-Za-z0-9]{8}$",
			Desc: "A tournament where players are paired again as soon as their game ends, until the time runs out.",
			Fields: []lfField{
				lfField{Name: "name", Type: "string", Min: "2", Max: "30", Desc: "The tournament's name; one is made up when left out."},
				req(integer("clockTime", "0", "60", "The clock's start, in minutes.")),
				req(integer("clockIncrement", "0", "60", "Seconds added after each move.")),
				req(integer("minutes", "20", "720", "How long the tournament lasts.")),
				enum("variant", lfVariant, "The rules of its games."),
				boolean("rated", "Whether its games change ratings."),
				str("password", "Makes the tournament private: players need it to join."),
			},
			Create: "json", Sort: []string{"startsAt", "nbPlayers"}, Export: true,
			ExtraReadParams: []lfField{enum("status", []string{"created", "started", "finished"}, "Only tournaments in this state.")},
			Actions: []lfAction{
				{Name: "join", Summary: "Join a tournament, or come back to it after a pause.", Desc: "You are paired at the next round.", Body: "form",
					Fields: []lfField{str("password", "The tournament's password, if it has one."), str("team", "The team you play for, in a team battle."), boolean("pairMeAsap", "Be paired at once.")}},
				{Name: "withdraw", Summary: "Leave a tournament, or pause in it.", Desc: "Your points stay; you can come back with join while it runs."},
				{Name: "terminate", Summary: "End a tournament you created.", Desc: "Games being played finish normally; no new pairings are made."},
				{Name: "results", Summary: "Stream a tournament's results.", Desc: "One player a line (application/x-ndjson), by rank, with score and performance.", Method: "GET", Stream: true,
					Query: []lfField{integer("nb", "1", "1000", "How many players at most."), boolean("sheet", "Include each player's score sheet.")}},
			}},
		{Tag: "swiss", Path: "swiss", Name: "SwissTournament", Names: "SwissTournaments", One: "Swiss tournament", Many: "Swiss tournaments", ID: "swissId",
			Desc: "A tournament of a fixed number of rounds where everyone plays one game a round against someone with the same score.",
			Fields: []lfField{
				req(str("name", "The tournament's name.")),
				req(integer("clockLimit", "0", "10800", "The clock's start, in seconds.")),
				req(integer("clockIncrement", "0", "120", "Seconds added after each move.")),
				req(integer("nbRounds", "3", "100", "How many rounds.")),
				integer("roundInterval", "5", "604800", "Seconds between rounds."),
				str("description", "Shown on the tournament's page."),
			},
			Create: "form", Sort: []string{"startsAt"}, Export: true,
			Actions: []lfAction{
				{Name: "join", Summary: "Join a Swiss tournament.", Desc: "You are paired from the next round on.", Body: "form", Fields: []lfField{str("password", "The tournament's password, if it has one.")}},
				{Name: "withdraw", Summary: "Leave a Swiss tournament.", Desc: "You are not paired again; your games so far still count."},
				{Name: "scheduleNextRound", Summary: "Set when the next round starts.", Desc: "Only the tournament's creator can.", Body: "form", Fields: []lfField{req(integer("date", "0", "", "When, in milliseconds since the epoch."))}},
				{Name: "trf", Summary: "The tournament in the FIDE report format.", Desc: "Plain text, one line a player, for federations' rating software.", Method: "GET"},
			}},
		{Tag: "simuls", Path: "simuls", Name: "Simul", Names: "Simuls", One: "simultaneous exhibition", Many: "simultaneous exhibitions", ID: "simulId",
			Desc:   "One strong player against many at once, on many boards.",
			Fields: []lfField{req(str("name", "The exhibition's name.")), req(integer("clockLimit", "0", "180", "Minutes on each clock.")), integer("clockExtra", "0", "60", "Extra minutes for the host."), enum("color", lfColor, "The colour the host plays."), str("text", "Shown on the exhibition's page.")},
			Create: "form", Sort: []string{"createdAt"},
			Actions: []lfAction{
				{Name: "start", Summary: "Start an exhibition you host.", Desc: "Every accepted player's game starts at once."},
				{Name: "abort", Summary: "Abort an exhibition you host before it starts.", Desc: "The players who joined are told."},
				{Name: "join", Summary: "Ask to play in an exhibition.", Desc: "The host accepts or declines players before starting.", Body: "form", Fields: []lfField{enum("variant", lfVariant, "The variant you want to play, among the host's.")}},
			}},
		{Tag: "studies", Path: "studies", Name: "Study", Names: "Studies", One: "study", Many: "studies", ID: "studyId",
			Desc:   "A shared notebook of annotated positions and games, in chapters.",
			Fields: []lfField{req(str("name", "The study's name.")), enum("visibility", []string{"public", "unlisted", "private"}, "Who can see it."), enum("computer", []string{"everyone", "nobody", "owner", "contributor"}, "Who may use the computer analysis."), boolean("chat", "Whether the study has a chat.")},
			Create: "json", Sort: []string{"updatedAt", "likes", "name"}, Export: true, ByIDs: true,
			Actions: []lfAction{
				{Name: "importPgn", Summary: "Import games into a study as new chapters.", Desc: "Each game of the notation becomes a chapter, up to 64 in all.", Body: "form",
					Fields: []lfField{req(str("pgn", "One or more games in portable game notation.")), enum("orientation", []string{"white", "black"}, "The side shown at the bottom."), enum("variant", lfVariant, "The rules of the games.")}},
				{Name: "clone", Summary: "Copy a study into a new one you own.", Desc: "The copy keeps the chapters and comments, not the members."},
			}},
		{Tag: "studies", Path: "chapters", Name: "Chapter", Names: "Chapters", One: "study chapter", Many: "study chapters", ID: "chapterId",
			Desc:   "One chapter of a study: a position or a game, with comments and variations.",
			Fields: []lfField{req(str("studyId", "The study it belongs to.")), req(str("name", "The chapter's name.")), str("fen", "The starting position, in Forsyth-Edwards notation."), enum("orientation", []string{"white", "black"}, "The side shown at the bottom.")},
			Create: "json", Sort: []string{"order", "name"},
			Actions: []lfAction{
				{Name: "move", Summary: "Move a chapter within its study.", Desc: "Chapters are shown in order; the others shift.", Query: []lfField{req(integer("position", "0", "63", "The chapter's new place, from 0."))}},
				{Name: "pgn", Summary: "A chapter as portable game notation.", Desc: "Plain text with the comments and variations.", Method: "GET", Query: []lfField{boolean("clocks", "Include clock comments."), boolean("comments", "Include the comments.")}},
			}},
		{Tag: "broadcasts", Path: "broadcasts", Name: "Broadcast", Names: "Broadcasts", One: "broadcast", Many: "broadcasts", ID: "broadcastId",
			Desc:   "An over-the-board event relayed live, round by round.",
			Fields: []lfField{req(str("name", "The event's name.")), str("description", "A short description, shown in lists."), str("markdown", "The event's page, in Markdown."), enum("tier", []string{"normal", "high", "best"}, "How prominently it is shown (admins only).")},
			Create: "form", Sort: []string{"startsAt", "viewers"}, Export: true,
			Actions: []lfAction{
				{Name: "reset", Summary: "Reset a broadcast's rounds to their start.", Desc: "Removes every game and move pushed so far."},
			}},
		{Tag: "broadcasts", Path: "rounds", Name: "BroadcastRound", Names: "BroadcastRounds", One: "broadcast round", Many: "broadcast rounds", ID: "roundId",
			Desc:   "One round of a broadcast, with its games as they are played.",
			Fields: []lfField{req(str("broadcastId", "The broadcast it belongs to.")), req(str("name", "The round's name, e.g. Round 4.")), integer("startsAt", "0", "", "When it starts, in milliseconds since the epoch."), str("syncUrl", "Where to read the games from, if not pushed.")},
			Create: "json", Sort: []string{"startsAt"},
			Actions: []lfAction{
				{Name: "pushPgn", Summary: "Push a round's games as portable game notation.", Desc: "The games replace the round's games of the same players; the body is the notation as plain text.", Body: "text"},
				{Name: "finish", Summary: "Mark a round finished.", Desc: "Viewers are told; games still open are left as they are."},
				{Name: "games", Summary: "Stream a round's games as they change.", Desc: "One game a line (application/x-ndjson), again each time a move is played.", Method: "GET", Stream: true},
			}},
		{Tag: "teams", Path: "teams", Name: "Team", Names: "Teams", One: "team", Many: "teams", ID: "teamId",
			Desc:   "A group of players with a page, a forum and team battles.",
			Fields: []lfField{req(str("name", "The team's name.")), str("description", "The team's page, in Markdown."), boolean("open", "Whether anyone can join without a request."), str("password", "Needed to join, when set.")},
			Create: "form", Sort: []string{"nbMembers", "createdAt", "name"}, ByIDs: true,
			Actions: []lfAction{
				{Name: "join", Summary: "Join a team, or ask to.", Desc: "A closed team's leaders read your message and accept or decline.", Body: "form",
					Fields: []lfField{str("message", "For the leaders of a closed team."), str("password", "The team's password, if it has one.")}},
				{Name: "quit", Summary: "Leave a team.", Desc: "You can ask to join again later."},
				{Name: "messageAll", Summary: "Send a private message to every member of a team you lead.", Desc: "The same message to each; members who turned messages off do not get it.", Body: "form",
					Fields: []lfField{req(lfField{Name: "message", Type: "string", Max: "2000", Desc: "The message."})}},
				{Name: "banner", Summary: "Change a team's banner.", Desc: "The caption and keywords shown on the team's page, and optionally an image.", Method: "PUT", Body: "multipart",
					Fields: []lfField{req(lfField{Name: "caption", Type: "string", Max: "80", Desc: "The caption."}), list("keywords", "string", "Words the team is found by."), lfField{Name: "image", Type: "file", Desc: "A PNG or JPEG image."}}},
			}},
		{Tag: "teams", Path: "team-requests", Name: "TeamRequest", Names: "TeamRequests", One: "team join request", Many: "team join requests", ID: "requestId",
			Desc:   "A player's request to join a closed team, waiting for a leader.",
			Fields: []lfField{req(str("teamId", "The team.")), str("message", "What the player wrote.")},
			Create: "json", Sort: []string{"createdAt"},
			Actions: []lfAction{
				{Name: "accept", Summary: "Accept a request to join a team you lead.", Desc: "The player becomes a member at once."},
				{Name: "decline", Summary: "Decline a request to join a team you lead.", Desc: "The player is not told why."},
			}},
		{Tag: "puzzles", Path: "puzzles", Name: "Puzzle", Names: "Puzzles", One: "puzzle", Many: "puzzles", ID: "puzzleId",
			Desc:   "A position from a real game with one best line to find.",
			Fields: []lfField{integer("rating", "400", "3500", "How hard it is."), list("themes", "string", "Its themes, e.g. fork, mateIn2, endgame."), str("fen", "The position, in Forsyth-Edwards notation.")},
			Sort:   []string{"rating", "plays"}, Export: true, ByIDs: true,
			ExtraReadParams: []lfField{str("theme", "Only puzzles with this theme."), integer("minRating", "400", "3500", "Only puzzles at least this hard.")},
			Actions: []lfAction{
				{Name: "solve", Summary: "Report a puzzle you solved or failed.", Desc: "Your puzzle rating changes when rated is true.", Body: "json",
					Fields: []lfField{req(boolean("win", "Whether you found the whole line.")), boolean("rated", "Whether it counts for your rating.")}},
				{Name: "vote", Summary: "Say whether you liked a puzzle.", Desc: "Puzzles voted down are shown less.", Body: "form", Fields: []lfField{req(boolean("up", "true for a good puzzle."))}},
			}},
		{Tag: "puzzles", Path: "puzzle-races", Name: "PuzzleRace", Names: "PuzzleRaces", One: "puzzle race", Many: "puzzle races", ID: "raceId",
			Desc:   "Players solving the same series of puzzles against the clock.",
			Fields: []lfField{integer("seconds", "60", "300", "How long the race lasts."), boolean("private", "Only players with its link can join.")},
			Create: "json", Sort: []string{"createdAt"},
			Actions: []lfAction{
				{Name: "join", Summary: "Join a puzzle race.", Desc: "You race from its next start."},
				{Name: "start", Summary: "Start a race you created.", Desc: "Everyone who joined starts at once."},
			}},
		{Tag: "forum", Path: "topics", Name: "Topic", Names: "Topics", One: "forum topic", Many: "forum topics", ID: "topicId",
			Desc:   "A thread of a forum, with its posts.",
			Fields: []lfField{req(str("categoryId", "The forum it goes in.")), req(lfField{Name: "name", Type: "string", Min: "3", Max: "100", Desc: "The topic's title."}), req(str("post", "The first post, in Markdown."))},
			Create: "form", Sort: []string{"updatedAt", "createdAt", "nbPosts"},
			Actions: []lfAction{
				{Name: "lock", Summary: "Close a topic to new posts.", Desc: "Moderators only; the posts stay readable."},
				{Name: "pin", Summary: "Pin a topic to the top of its forum.", Desc: "Moderators only.", Query: []lfField{req(boolean("pinned", "true to pin, false to unpin."))}},
			}},
		{Tag: "forum", Path: "posts", Name: "Post", Names: "Posts", One: "forum post", Many: "forum posts", ID: "postId",
			Desc:   "One message in a forum topic.",
			Fields: []lfField{req(str("topicId", "The topic it answers.")), req(lfField{Name: "text", Type: "string", Max: "10000", Desc: "The post, in Markdown."})},
			Create: "form", Sort: []string{"createdAt"},
			Actions: []lfAction{
				{Name: "react", Summary: "React to a post.", Desc: "One reaction of each kind per player; sending it again takes it back.", Body: "form",
					Fields: []lfField{req(enum("reaction", []string{"plusOne", "minusOne", "laugh", "thinking", "heart", "horsey"}, "The reaction."))}},
				{Name: "report", Summary: "Report a post to the moderators.", Desc: "Say what is wrong; the author is not told who reported it.", Body: "text"},
			}},
		{Tag: "inbox", Path: "messages", Name: "Message", Names: "Messages", One: "private message", Many: "private messages", ID: "messageId",
			Desc:   "A private message between two players.",
			Fields: []lfField{req(str("to", "The player it is for.")), req(lfField{Name: "text", Type: "string", Max: "8000", Desc: "The message."})},
			Create: "form", Sort: []string{"createdAt"},
			Actions: []lfAction{
				{Name: "markRead", Summary: "Mark a message read.", Desc: "Also marks the earlier messages of its conversation read."},
				{Name: "blockSender", Summary: "Block the player who sent a message.", Desc: "They cannot write to you, challenge you or see your games' chat."},
			}},
		{Tag: "bots", Path: "bots", Name: "Bot", Names: "Bots", One: "bot account", Many: "bot accounts", ID: "botId",
			Desc:   "An account played by a program through the bot API.",
			Fields: []lfField{req(str("username", "The bot's name.")), str("engine", "The program that plays, shown on its profile."), list("variants", "string", "The variants it accepts challenges in.")},
			Create: "json", Sort: []string{"rating", "createdAt"}, ByIDs: true,
			Actions: []lfAction{
				{Name: "upgrade", Summary: "Turn an account into a bot account.", Desc: "For good: the account must have played no game."},
				{Name: "events", Summary: "Stream a bot's incoming events.", Desc: "Challenges and game starts, one JSON object a line (application/x-ndjson).", Method: "GET", Stream: true},
			}},
		{Tag: "engines", Path: "external-engines", Name: "ExternalEngine", Names: "ExternalEngines", One: "external engine", Many: "external engines", ID: "engineId",
			Desc:   "A chess engine running on your own machine, used from the analysis board.",
			Fields: []lfField{req(str("name", "The engine's name.")), req(integer("maxThreads", "1", "65536", "Threads it may use.")), req(integer("maxHash", "1", "1048576", "Hash table size, in megabytes.")), list("variants", "string", "Variants it supports.")},
			Create: "json", Sort: []string{"name"},
			Actions: []lfAction{
				{Name: "analyse", Summary: "Ask an engine to analyse a position.", Desc: "Lines come back as a stream (application/x-ndjson) while the engine thinks.", Body: "json", Stream: true,
					Fields: []lfField{req(str("fen", "The position.")), integer("movetime", "1", "60000", "Milliseconds to think."), integer("multiPv", "1", "5", "How many lines.")}},
				{Name: "stop", Summary: "Stop an engine's analysis.", Desc: "The lines found so far stay."},
			}},
		{Tag: "account", Path: "notes", Name: "Note", Names: "Notes", One: "private note", Many: "private notes", ID: "noteId",
			Desc:   "A note you keep about another player, that only you see.",
			Fields: []lfField{req(str("username", "The player it is about.")), req(str("text", "The note."))},
			Create: "form", Sort: []string{"createdAt"},
			Actions: []lfAction{{Name: "share", Summary: "Share a note with the moderators.", Desc: "They see it next to the player's reports."}}},
		{Tag: "events", Path: "events", Name: "Event", Names: "Events", One: "calendar event", Many: "calendar events", ID: "eventId",
			Desc:   "A scheduled event on the platform's calendar: a tournament, a broadcast, a stream.",
			Fields: []lfField{req(str("title", "The event's title.")), req(integer("startsAt", "0", "", "When it starts, in milliseconds since the epoch.")), integer("duration", "1", "1440", "How long, in minutes."), str("url", "Where to follow it.")},
			Create: "json", Sort: []string{"startsAt"},
			Actions: []lfAction{
				{Name: "subscribe", Summary: "Be told when an event starts.", Desc: "A notification when it starts, by the channels you chose."},
				{Name: "unsubscribe", Summary: "Stop being told when an event starts.", Desc: "Nothing else changes."},
			}},
		{Tag: "users", Path: "users", Name: "User", Names: "Users", One: "player", Many: "players", ID: "username",
			Desc:   "A player's public profile: ratings, counts of games, whether they are online.",
			Fields: []lfField{str("username", "The player's name."), enum("title", []string{"GM", "IM", "FM", "CM", "NM", "WGM", "BOT"}, "A title, if any."), boolean("online", "Whether they are online now.")},
			Sort:   []string{"seenAt", "createdAt"}, Export: true, ByIDs: true,
			Actions: []lfAction{
				{Name: "follow", Summary: "Follow a player.", Desc: "Their games and activity appear in your timeline."},
				{Name: "unfollow", Summary: "Stop following a player.", Desc: "Nothing else changes."},
				{Name: "block", Summary: "Block a player.", Desc: "They cannot message or challenge you."},
				{Name: "ratingHistory", Summary: "A player's ratings over time.", Desc: "One series a speed, one point a day they played.", Method: "GET"},
			}},
		{Tag: "leaderboards", Path: "leaderboards", Name: "Leaderboard", Names: "Leaderboards", One: "leaderboard", Many: "leaderboards", ID: "perfType",
			Desc:   "The best players of one speed or variant.",
			Fields: []lfField{enum("perfType", lfSpeed, "The speed or variant.")}, Sort: []string{"rating"}, Export: true},
		{Tag: "tv", Path: "tv/channels", Name: "TvChannel", Names: "TvChannels", One: "TV channel", Many: "TV channels", ID: "channel",
			Desc:   "The game the platform shows on one channel: the best one being played of a speed.",
			Fields: []lfField{enum("speed", lfSpeed, "The channel's speed.")}, Sort: []string{"rating"}, Export: true},
		{Tag: "openings", Path: "openings", Name: "Opening", Names: "Openings", One: "opening", Many: "openings", ID: "eco",
			Desc:   "A named opening, with how often it is played and how it scores.",
			Fields: []lfField{str("name", "The opening's name."), str("moves", "Its moves.")}, Sort: []string{"games", "name"}, Export: true},
	}
}

// lfWriter writes YAML lines.
type lfWriter struct{ bytes.Buffer }

func (w *lfWriter) line(indent int, format string, args ...any) {
	w.WriteString(strings.Repeat("  ", indent))
	fmt.Fprintf(&w.Buffer, format, args...)
	w.WriteByte('\n')
}

func lfQuote(s string) string { return strconv.Quote(s) }

// response writes a response's description (as YAML already) and the start of its one
// content, of mediaType, at indent: the schema goes at indent+3.
func (w *lfWriter) response(indent int, desc, mediaType string) {
	w.line(indent, "description: %s", desc)
	w.line(indent, "content:")
	w.line(indent+1, "%s:", mediaType)
	w.line(indent+2, "schema:")
}

// schema writes a field's schema at indent.
func (w *lfWriter) schema(indent int, f lfField) {
	switch f.Type {
	case "file":
		w.line(indent, "type: string")
		w.line(indent, "format: binary")
	case "array":
		w.line(indent, "type: array")
		w.line(indent, "items:")
		w.line(indent+1, "type: %s", f.Items)
	default:
		w.line(indent, "type: %s", f.Type)
	}
	if len(f.Enum) > 0 {
		w.line(indent, "enum: [%s]", strings.Join(f.Enum, ", "))
	}
	lo, hi := "minimum", "maximum"
	if f.Type == "string" {
		lo, hi = "minLength", "maxLength"
	}
	if f.Min != "" {
		w.line(indent, "%s: %s", lo, f.Min)
	}
	if f.Max != "" {
		w.line(indent, "%s: %s", hi, f.Max)
	}
	if f.Desc != "" {
		w.line(indent, "description: %s", lfQuote(f.Desc))
	}
}

// object writes an object schema of fields at indent; required marks required fields.
func (w *lfWriter) object(indent int, fields []lfField, required bool) {
	w.line(indent, "type: object")
	var req []string
	for _, f := range fields {
		if f.Required {
			req = append(req, f.Name)
		}
	}
	if required && len(req) > 0 {
		w.line(indent, "required: [%s]", strings.Join(req, ", "))
	}
	w.line(indent, "properties:")
	for _, f := range fields {
		w.line(indent+1, "%s:", f.Name)
		w.schema(indent+2, f)
	}
}

// param writes one parameter at indent, as a list item.
func (w *lfWriter) param(indent int, in string, f lfField) {
	w.line(indent, "- name: %s", f.Name)
	w.paramRest(indent+1, in, f)
}

// paramRest writes a parameter's place, schema and description at indent.
func (w *lfWriter) paramRest(indent int, in string, f lfField) {
	w.line(indent, "in: %s", in)
	if f.Required || in == "path" {
		w.line(indent, "required: true")
	}
	w.line(indent, "schema:")
	w.schema(indent+1, lfField{Type: f.Type, Enum: f.Enum, Min: f.Min, Max: f.Max, Items: f.Items})
	if f.Desc != "" {
		w.line(indent, "description: %s", lfQuote(f.Desc))
	}
}

// lfOp is one operation as written.
type lfOp struct {
	method, id, summary, desc string
	params                    []string // component parameter names
	path                      *lfField // the item's id, when on an item
	query                     []lfField
	body                      string // "", "json", "form", "multipart", "text"
	bodyRef                   string // a component schema for the body
	fields                    []lfField
	textDesc                  string
	stream, plain, list       bool // answers application/x-ndjson; text/plain; a JSON array
	answer                    string
}

// lfPathItem is one path and its operations.
type lfPathItem struct {
	key, path string
	ops       []lfOp
}

// largeFixture returns the large fixture's files by their path under its folder.
func largeFixture() (files map[string][]byte, operations int) {
	files = map[string][]byte{}
	var root lfWriter
	root.line(0, "openapi: 3.1.0")
	root.line(0, "info:")
	root.line(1, "title: Kingside")
	root.line(1, `version: "2.0"`)
	root.line(1, "summary: The API of a large online board-game platform.")
	root.line(1, "description: |")
	for _, l := range []string{
		"Kingside is a fictional online platform for chess and its variants: players challenge",
		"each other, play on the board API or as bots, run arenas, Swiss tournaments and",
		"simultaneous exhibitions, keep studies, relay broadcasts, lead teams and forums, and",
		"solve puzzles. This spec is a generated test fixture of coplay's OpenAPI driver",
		"(game/openapi/large_fixture_test.go), large like real platforms' specs: " + strconv.Itoa(largeOperations) + " operations",
		"over one file per tag, with text bodies (ids separated by commas, game notation),",
		"url-encoded and multipart forms and streaming answers (application/x-ndjson).",
	} {
		root.line(2, "%s", l)
	}
	root.line(0, "servers:")
	root.line(1, "- url: https://kingside.example/api")
	root.line(0, "security:")
	root.line(1, "- oauth: []")
	root.line(0, "components:")
	root.line(1, "securitySchemes:")
	root.line(2, "oauth:")
	root.line(3, "type: http")
	root.line(3, "scheme: bearer")

	byTag := map[string][]lfPathItem{}
	var tags []string
	addItem := func(tag string, item lfPathItem) {
		if _, ok := byTag[tag]; !ok {
			tags = append(tags, tag)
		}
		byTag[tag] = append(byTag[tag], item)
	}
	idRef := func(r lfResource) *lfField {
		f := lfField{Name: r.ID, Type: "string", Desc: "The " + r.One + "'s id.", Required: true}
		if r.IDPattern != "" {
			f.Desc += " " + "8 letters and digits."
		}
		return &f
	}
	var schemas lfWriter
	for _, r := range lfResources() {
		base := "/" + r.Path
		key := strings.ReplaceAll(r.Path, "/", "_")
		// The resource's schemas: the thing, and the fields a request sends.
		schemas.line(0, "%s:", r.Name)
		schemas.line(1, "description: %s", lfQuote(r.Desc))
		schemas.object(1, append([]lfField{{Name: "id", Type: "string", Desc: "Its id."}}, r.Fields...), false)
		if r.Create != "" {
			schemas.line(0, "%sInput:", r.Name)
			schemas.line(1, "description: %s", lfQuote("What a new "+r.One+" is made of."))
			schemas.object(1, r.Fields, true)
		}

		listOp := lfOp{method: "get", id: "list" + r.Names, summary: "List " + r.Many + ".",
			desc:   "The " + r.Many + " you can see, a page at a time, in the order asked. " + r.Desc,
			params: []string{"Limit", "Offset"}, answer: r.Name, list: true}
		listOp.query = append([]lfField{{Name: "sort", Type: "string", Enum: r.Sort, Desc: "The order, newest or largest first."}}, r.ExtraReadParams...)
		collection := lfPathItem{key: key, path: base, ops: []lfOp{listOp}}
		if r.Create != "" {
			collection.ops = append(collection.ops, lfOp{method: "post", id: "create" + r.Name, summary: "Create a " + r.One + ".",
				desc: "Creates a " + r.One + " that you own; you can change or delete it later.", body: r.Create, bodyRef: r.Name + "Input", answer: r.Name})
		}
		addItem(r.Tag, collection)
		if r.Export {
			addItem(r.Tag, lfPathItem{key: key + "_export", path: base + "/export", ops: []lfOp{{method: "get", id: "export" + r.Names, summary: "Stream " + r.Many + ".",
				desc:   "Every " + r.One + " that matches, one JSON object a line (application/x-ndjson), as they are read; the stream ends after the last one.",
				params: []string{"Since", "Until", "Max"}, stream: true, answer: r.Name}}})
		}
		if r.ByIDs {
			addItem(r.Tag, lfPathItem{key: key + "_ids", path: base + "/_ids", ops: []lfOp{{method: "post", id: "get" + r.Names + "ByIds", summary: "Several " + r.Many + " by their ids.",
				desc: "Up to 300 at once, in the order given; ids that match nothing are left out.", body: "text",
				textDesc: "The " + r.Many + "' ids separated by commas, e.g. id1,id2,id3.", answer: r.Name, list: true}}})
		}
		item := lfPathItem{key: key + "_id", path: base + "/{" + r.ID + "}", ops: []lfOp{{method: "get", id: "get" + r.Name, summary: "One " + r.One + " by its id.",
			desc: r.Desc, path: idRef(r), answer: r.Name}}}
		if r.Create != "" {
			item.ops = append(item.ops,
				lfOp{method: "patch", id: "update" + r.Name, summary: "Change a " + r.One + ".",
					desc: "Only the fields given change; the others keep their values. Only the " + r.One + "'s owner can.", path: idRef(r), body: "json", fields: r.Fields, answer: r.Name},
				lfOp{method: "delete", id: "delete" + r.Name, summary: "Delete a " + r.One + ".",
					desc: "Deletes it for good; what refers to it is kept. Only its owner can.", path: idRef(r), answer: "Ok"})
		}
		addItem(r.Tag, item)
		for _, a := range r.Actions {
			method := strings.ToLower(a.Method)
			if method == "" {
				method = "post"
			}
			op := lfOp{method: method, id: a.Name + r.Name, summary: a.Summary, desc: a.Desc, path: idRef(r), query: a.Query, body: a.Body, fields: a.Fields, stream: a.Stream, answer: "Ok"}
			if a.Method == "GET" && !a.Stream {
				op.answer = r.Name
				op.plain = a.Name == "trf" || a.Name == "pgn"
			}
			if a.Body == "text" {
				op.textDesc = "The text, as it is: " + strings.ToLower(strings.TrimSuffix(a.Summary, ".")) + "."
			}
			addItem(r.Tag, lfPathItem{key: key + "_id_" + a.Name, path: base + "/{" + r.ID + "}/" + a.Name, ops: []lfOp{op}})
		}
	}
	// The signed-in account, and the platform's own status (untagged).
	addItem("account", lfPathItem{key: "account", path: "/account", ops: []lfOp{{method: "get", id: "getMyAccount", summary: "Your profile.", desc: "The signed-in player's profile, with ratings by speed.", answer: "User"}}})
	addItem("account", lfPathItem{key: "account_email", path: "/account/email", ops: []lfOp{{method: "get", id: "getMyEmail", summary: "Your email address.", desc: "Needs the email:read scope.", answer: "Ok"}}})
	addItem("account", lfPathItem{key: "account_preferences", path: "/account/preferences", ops: []lfOp{
		{method: "get", id: "getMyPreferences", summary: "Your preferences.", desc: "Board theme, piece set, sounds, whether moves are confirmed.", answer: "Ok"},
		{method: "put", id: "setMyPreferences", summary: "Change your preferences.", desc: "Only the preferences given change.", body: "form",
			fields: []lfField{{Name: "theme", Type: "string", Enum: []string{"brown", "blue", "green", "purple"}, Desc: "The board's colours."}, {Name: "pieceSet", Type: "string", Desc: "The pieces' look."},
				{Name: "confirmMoves", Type: "boolean", Desc: "Ask before each move."}, {Name: "zen", Type: "boolean", Desc: "Hide everything but the board while playing."}}, answer: "Ok"}}})
	addItem("account", lfPathItem{key: "account_kid", path: "/account/kid", ops: []lfOp{
		{method: "get", id: "getKidMode", summary: "Whether kid mode is on.", desc: "Kid mode hides chats and messages.", answer: "Ok"},
		{method: "post", id: "setKidMode", summary: "Turn kid mode on or off.", desc: "Kid mode hides chats and messages.", query: []lfField{{Name: "v", Type: "boolean", Required: true, Desc: "true for on."}}, answer: "Ok"}}})
	addItem("account", lfPathItem{key: "account_timeline", path: "/account/timeline", ops: []lfOp{{method: "get", id: "getTimeline", summary: "Your timeline.", desc: "What the players you follow did lately.", params: []string{"Since", "Max"}, answer: "Ok"}}})
	addItem("account", lfPathItem{key: "account_stream", path: "/account/stream", ops: []lfOp{{method: "get", id: "streamMyEvents", summary: "Stream your incoming events.", desc: "Challenges, game starts and ends, one JSON object a line (application/x-ndjson).", stream: true, answer: "Ok"}}})
	addItem("status", lfPathItem{key: "status", path: "/status", ops: []lfOp{{method: "get", summary: "Whether the platform is up.", desc: "No operationId and no tag: a tool named from its method and path.", answer: "Ok"}}})
	addItem("status", lfPathItem{key: "time", path: "/time", ops: []lfOp{{method: "get", summary: "The server's clock.", desc: "Milliseconds since the epoch, to set clocks by.", answer: "Ok"}}})

	root.line(0, "tags:")
	tagDesc := map[string]string{
		"games": "Games finished and ongoing.", "board": "Play games move by move.", "challenges": "Invitations to play.",
		"arena": "Arena tournaments.", "swiss": "Swiss tournaments.", "simuls": "Simultaneous exhibitions.", "studies": "Studies and their chapters.",
		"broadcasts": "Over-the-board events relayed live.", "teams": "Teams and requests to join them.", "puzzles": "Puzzles and puzzle races.",
		"forum": "Forum topics and posts.", "inbox": "Private messages.", "bots": "Bot accounts.", "engines": "Your own engines.",
		"account": "Your account, preferences and notes.", "events": "The calendar.", "users": "Players.", "leaderboards": "The best players.",
		"tv": "The games shown on TV.", "openings": "The opening explorer.",
	}
	for _, tag := range tags {
		if tag == "status" {
			continue
		}
		root.line(1, "- name: %s", tag)
		root.line(2, "description: %s", lfQuote(tagDesc[tag]))
	}
	root.line(0, "paths:")
	for _, tag := range tags {
		var w lfWriter
		for _, item := range byTag[tag] {
			root.line(1, "/api%s:", item.path)
			root.line(2, "$ref: %s", lfQuote("paths/"+tag+".yaml#/"+item.key))
			w.line(0, "%s:", item.key)
			for _, op := range item.ops {
				operations++
				w.line(1, "%s:", op.method)
				if op.id != "" {
					w.line(2, "operationId: %s", op.id)
				}
				if tag != "status" {
					w.line(2, "tags: [%s]", tag)
				}
				w.line(2, "summary: %s", lfQuote(op.summary))
				w.line(2, "description: %s", lfQuote(op.desc))
				if op.path != nil || len(op.query) > 0 || len(op.params) > 0 {
					w.line(2, "parameters:")
					if op.path != nil {
						w.param(3, "path", *op.path)
					}
					for _, p := range op.params {
						w.line(3, "- $ref: %s", lfQuote("../components/parameters.yaml#/"+p))
					}
					for _, q := range op.query {
						w.param(3, "query", q)
					}
				}
				if op.body != "" {
					w.line(2, "requestBody:")
					w.line(3, "required: %v", op.method != "patch")
					ct := map[string]string{"json": "application/json", "form": "application/x-www-form-urlencoded", "multipart": "multipart/form-data", "text": "text/plain"}[op.body]
					w.line(3, "content:")
					w.line(4, "%s:", ct)
					w.line(5, "schema:")
					switch {
					case op.body == "text":
						w.line(6, "type: string")
						w.line(6, "description: %s", lfQuote(op.textDesc))
					case op.bodyRef != "":
						w.line(6, "$ref: %s", lfQuote("../components/schemas.yaml#/"+op.bodyRef))
					default:
						w.object(6, op.fields, op.method != "patch")
					}
				}
				w.line(2, "responses:")
				w.line(3, `"200":`)
				switch {
				case op.answer == "Ok":
					w.line(4, "$ref: %s", lfQuote("../components/responses.yaml#/Ok"))
				case op.stream:
					w.response(4, lfQuote("One JSON object a line."), "application/x-ndjson")
					w.line(7, "$ref: %s", lfQuote("../components/schemas.yaml#/"+op.answer))
				case op.plain:
					w.response(4, lfQuote("Plain text."), "text/plain")
					w.line(7, "type: string")
				case op.list:
					w.response(4, lfQuote("A list, in the order asked."), "application/json")
					w.line(7, "type: array")
					w.line(7, "items:")
					w.line(8, "$ref: %s", lfQuote("../components/schemas.yaml#/"+op.answer))
				default:
					w.response(4, lfQuote("The "+op.answer+"."), "application/json")
					w.line(7, "$ref: %s", lfQuote("../components/schemas.yaml#/"+op.answer))
				}
				if op.path != nil {
					w.line(3, `"404":`)
					w.line(4, "$ref: %s", lfQuote("../components/responses.yaml#/NotFound"))
				}
			}
		}
		files["paths/"+tag+".yaml"] = w.Bytes()
	}
	files["openapi.yaml"] = root.Bytes()

	var params lfWriter
	for _, p := range []struct {
		name string
		f    lfField
	}{
		{"Limit", lfField{Name: "limit", Type: "integer", Min: "1", Max: "100", Desc: "How many at most on a page."}},
		{"Offset", lfField{Name: "offset", Type: "integer", Min: "0", Desc: "How many to skip, for the next pages."}},
		{"Since", lfField{Name: "since", Type: "integer", Min: "0", Desc: "Only those since this time, in milliseconds since the epoch."}},
		{"Until", lfField{Name: "until", Type: "integer", Min: "0", Desc: "Only those until this time, in milliseconds since the epoch."}},
		{"Max", lfField{Name: "max", Type: "integer", Min: "1", Desc: "How many at most."}},
	} {
		params.line(0, "%s:", p.name)
		params.line(1, "name: %s", p.f.Name)
		params.paramRest(1, "query", p.f)
	}
	files["components/parameters.yaml"] = params.Bytes()
	schemas.line(0, "Error:")
	schemas.object(1, []lfField{{Name: "error", Type: "string", Desc: "What went wrong."}}, false)
	files["components/schemas.yaml"] = schemas.Bytes()
	var responses lfWriter
	responses.line(0, "Ok:")
	responses.response(1, "Done.", "application/json")
	responses.object(4, []lfField{{Name: "ok", Type: "boolean"}}, false)
	responses.line(0, "NotFound:")
	responses.response(1, "There is no such thing.", "application/json")
	responses.line(4, "$ref: %s", lfQuote("schemas.yaml#/Error"))
	files["components/responses.yaml"] = responses.Bytes()
	return files, operations
}

// largeSpec is the large fixture's root file.
var largeSpec = fixture("large/openapi.yaml")

func TestLargeFixture(t *testing.T) {
	t.Parallel()
	files, n := largeFixture()
	if n != largeOperations {
		t.Errorf("the generator writes %d operations, want %d", n, largeOperations)
	}
	dir := fixture("large")
	if *writeLarge {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		for name, data := range files {
			path := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var stale []string
	for name, data := range files {
		disk, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(disk, data) {
			stale = append(stale, name)
		}
	}
	if len(stale) > 0 {
		slices.Sort(stale)
		t.Fatalf("testdata/openapi/large differs from its generator in %v: write it again with go test ./game/openapi -run TestLargeFixture -write-large", stale)
	}

	g := mustOpen(t, Config{Spec: largeSpec})
	if s := g.Skipped(); len(s) != 0 {
		t.Errorf("skipped %v, want none", s)
	}
	if len(g.ops) != largeOperations {
		t.Errorf("%d operations loaded, want %d", len(g.ops), largeOperations)
	}
	kinds := map[string]int{}
	groups := map[string]bool{}
	for _, op := range g.ops {
		kinds[op.BodyType]++
		groups[op.Tag] = true
	}
	t.Logf("large fixture: %d operations, bodies %v, %d tags", len(g.ops), kinds, len(groups))
	if kinds[bodyText] < 5 || kinds[bodyForm] < 10 || kinds[bodyMultipart] < 1 || kinds[bodyJSON] < 10 {
		t.Errorf("bodies %v: want text, url-encoded, multipart and JSON ones", kinds)
	}
	if toolNamed(t, g, "exportGames").Kind != game.Read || toolNamed(t, g, "pushPgnBroadcastRound").Schema.Properties[wholeBody].Type != "string" {
		t.Errorf("exportGames (a stream) or pushPgnBroadcastRound (a text body) is not what it should be")
	}
	grouped := mustOpen(t, Config{Spec: largeSpec, Catalog: CatalogGrouped})
	covered := 0
	for _, tool := range grouped.Tools() {
		if p := tool.Schema.Properties[opArgField]; p != nil {
			covered += len(p.Enum)
		}
	}
	if covered != largeOperations || len(grouped.Skipped()) != 0 {
		t.Errorf("the grouped catalogue covers %d operations and skips %v, want %d and none", covered, grouped.Skipped(), largeOperations)
	}
}
