package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/coplayhq/coplay/secret"
)

// Report is the whole result, as --json prints it.
type Report struct {
	Episodes []Episode      `json:"episodes"`
	Profiles []ProfileStats `json:"profiles"`
}

// ProfileID names a profile's version, in the order the profiles were given.
type ProfileID struct{ Name, Version string }

// ProfileStats aggregates one profile's episodes: every number is the mean over its
// episodes (Aggregate says so in the JSON), except Episodes and Seeds.
type ProfileStats struct {
	Profile            string   `json:"profile"`
	Version            string   `json:"version"`
	Aggregate          string   `json:"aggregate"` // "mean": every number below is a mean over the episodes
	Episodes           int      `json:"episodes"`
	Seeds              []int64  `json:"seeds"`
	Steps              float64  `json:"steps"`
	Score              string   `json:"score"` // the metric the game is scored by (see Episode)
	ScoreStart         float64  `json:"score_start"`
	ScoreEnd           float64  `json:"score_end"`
	ScorePer1000       float64  `json:"score_per_1000_steps"`
	CreditsStart       float64  `json:"credits_start"`
	CreditsEnd         float64  `json:"credits_end"`
	CreditsPer1000     float64  `json:"credits_per_1000_steps"`
	ContractsFulfilled float64  `json:"contracts_fulfilled"`
	InvalidCalls       float64  `json:"invalid_calls"`
	FailedCalls        float64  `json:"failed_calls"`
	GameRequests       float64  `json:"game_requests"`
	PromptTokens       float64  `json:"prompt_tokens"`
	CachedTokens       float64  `json:"cached_tokens"`
	CompletionTokens   float64  `json:"completion_tokens"`
	Cost               *float64 `json:"cost"` // null when any episode's cost is unknown
	// CostUpper says some episode's cost is an upper bound (cached tokens at the prompt
	// price), and so is the mean.
	CostUpper   bool    `json:"cost_upper"`
	WallSeconds float64 `json:"wall_seconds"`
	Errors      int     `json:"errors"` // episodes that ended early
}

// Summarize aggregates the episodes per profile, in the order of profiles.
func Summarize(profiles []ProfileID, eps []Episode) []ProfileStats {
	var out []ProfileStats
	for _, pl := range profiles {
		r := ProfileStats{Profile: pl.Name, Version: pl.Version, Aggregate: "mean", Seeds: []int64{}}
		cost, costKnown := 0.0, true
		for _, e := range eps {
			if e.Profile != r.Profile || e.Version != r.Version {
				continue
			}
			r.add(e)
			if e.Cost == nil {
				costKnown = false
			} else {
				cost += *e.Cost
				r.CostUpper = r.CostUpper || e.CostUpper
			}
		}
		n := float64(r.Episodes)
		for _, f := range []*float64{&r.Steps, &r.ScoreStart, &r.ScoreEnd, &r.ScorePer1000, &r.CreditsStart, &r.CreditsEnd, &r.CreditsPer1000, &r.ContractsFulfilled,
			&r.InvalidCalls, &r.FailedCalls, &r.GameRequests, &r.PromptTokens, &r.CachedTokens, &r.CompletionTokens, &r.WallSeconds} {
			*f /= n
		}
		if costKnown {
			c := cost / n
			r.Cost = &c
		}
		out = append(out, r)
	}
	return out
}

// add sums one episode's numbers into r (Summarize divides them by the count after).
func (r *ProfileStats) add(e Episode) {
	r.Episodes++
	r.Seeds = append(r.Seeds, e.Seed)
	r.Steps += float64(e.Steps)
	r.Score = e.Score
	r.ScoreStart += e.ScoreStart
	r.ScoreEnd += e.ScoreEnd
	r.ScorePer1000 += e.ScorePer1000
	r.CreditsStart += float64(e.CreditsStart)
	r.CreditsEnd += float64(e.CreditsEnd)
	r.CreditsPer1000 += e.CreditsPer1000
	r.ContractsFulfilled += float64(e.ContractsFulfilled)
	r.InvalidCalls += float64(e.InvalidCalls)
	r.FailedCalls += float64(e.FailedCalls)
	r.GameRequests += float64(e.GameRequests)
	r.PromptTokens += float64(e.PromptTokens)
	r.CachedTokens += float64(e.CachedTokens)
	r.CompletionTokens += float64(e.CompletionTokens)
	r.WallSeconds += e.WallSeconds
	if e.Error != "" {
		r.Errors++
	}
}

// costText is a cost for a table: never $0 for an unknown one, and "≤ $x" for an upper
// bound (cached tokens counted at the prompt price).
func costText(c *float64, upper bool) string {
	switch {
	case c == nil:
		return "cost unknown"
	case upper:
		return fmt.Sprintf("≤ $%.4f", *c)
	}
	return fmt.Sprintf("$%.4f", *c)
}

// cachedText is cached tokens with their share of the prompt tokens: "41200 (88%)".
func cachedText(cached, prompt float64) string {
	if prompt <= 0 {
		return fmt.Sprintf("%.0f", cached)
	}
	return fmt.Sprintf("%.0f (%.0f%%)", cached, 100*cached/prompt)
}

// WriteTables prints the episode and profile tables, with the columns of the report's
// game (tableColumns).
func WriteTables(w io.Writer, rep Report) {
	cols := tableColumns(rep)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "Episodes")
	fmt.Fprintln(tw, "profile\t"+startName(rep)+"\t"+joinCols(cols, func(c column) string { return c.short }, "\t")+"\t")
	for _, e := range rep.Episodes {
		fmt.Fprintln(tw, e.Profile+"@"+e.Version+"\t"+e.startCell()+"\t"+joinCols(cols, func(c column) string { return c.ep(e) }, "\t")+"\t")
	}
	tw.Flush()
	for _, e := range rep.Episodes {
		if e.Error != "" {
			fmt.Fprintf(w, "  %s %s ended early: %s\n", e.Profile, e.start(), e.Error)
		}
	}
	WriteModelFailures(w, rep, "  ")
	fmt.Fprintln(w, "\nProfiles (means over episodes)")
	fmt.Fprintln(tw, "profile\tepisodes\t"+joinCols(cols, func(c column) string { return c.short }, "\t")+"\t")
	for _, p := range rep.Profiles {
		fmt.Fprintln(tw, p.Profile+"@"+p.Version+"\t"+fmt.Sprint(p.Episodes)+"\t"+joinCols(cols, func(c column) string { return c.prof(p) }, "\t")+"\t")
	}
	tw.Flush()
	if hasUpperCost(rep) {
		fmt.Fprintln(w, "\n≤ $x: the model has no cached_prompt price in [prices], so cached tokens count at the prompt price; the real bill is at most this.")
	}
}

// column is one column of the tables after the profile and its seed (or episodes): its
// short head (the terminal's), its long head (the report's), and its cells.
type column struct {
	short, long string
	ep          func(Episode) string
	prof        func(ProfileStats) string
}

// tableColumns are the columns of rep's game: SpaceTraders (score "credits") counts
// contracts fulfilled and the HTTP requests that reached its server; the arena has
// neither, so its tables leave them out (and fit 160 columns).
func tableColumns(rep Report) []column {
	name := scoreName(rep)
	f0 := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	f1 := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	d := func(v int64) string { return fmt.Sprint(v) }
	cols := []column{
		{"steps", "steps", func(e Episode) string { return d(int64(e.Steps)) }, func(p ProfileStats) string { return f0(p.Steps) }},
		{name + " start", name + " start", func(e Episode) string { return f0(e.ScoreStart) }, func(p ProfileStats) string { return f0(p.ScoreStart) }},
		{"end", name + " end", func(e Episode) string { return f0(e.ScoreEnd) }, func(p ProfileStats) string { return f0(p.ScoreEnd) }},
		{"per 1k steps", "per 1k steps", func(e Episode) string { return f0(e.ScorePer1000) }, func(p ProfileStats) string { return f0(p.ScorePer1000) }},
	}
	spaceTraders := name == "credits"
	if spaceTraders {
		cols = append(cols, column{"contracts", "contracts", func(e Episode) string { return d(int64(e.ContractsFulfilled)) }, func(p ProfileStats) string { return f1(p.ContractsFulfilled) }})
	}
	cols = append(cols,
		column{"invalid", "invalid", func(e Episode) string { return d(int64(e.InvalidCalls)) }, func(p ProfileStats) string { return f1(p.InvalidCalls) }},
		column{"failed", "failed", func(e Episode) string { return d(int64(e.FailedCalls)) }, func(p ProfileStats) string { return f1(p.FailedCalls) }})
	if spaceTraders {
		cols = append(cols, column{"requests", "requests", func(e Episode) string { return d(e.GameRequests) }, func(p ProfileStats) string { return f0(p.GameRequests) }})
	}
	return append(cols,
		column{"prompt tok", "prompt tokens", func(e Episode) string { return d(e.PromptTokens) }, func(p ProfileStats) string { return f0(p.PromptTokens) }},
		column{"cached", "cached tokens", func(e Episode) string { return cachedText(float64(e.CachedTokens), float64(e.PromptTokens)) },
			func(p ProfileStats) string { return cachedText(p.CachedTokens, p.PromptTokens) }},
		column{"compl tok", "completion tokens", func(e Episode) string { return d(e.CompletionTokens) }, func(p ProfileStats) string { return f0(p.CompletionTokens) }},
		column{"cost", "cost", func(e Episode) string { return costText(e.Cost, e.CostUpper) }, func(p ProfileStats) string { return costText(p.Cost, p.CostUpper) }},
		column{"wall s", "wall s", func(e Episode) string { return f1(e.WallSeconds) }, func(p ProfileStats) string { return f1(p.WallSeconds) }})
}

// joinCols joins what cell says of each column with sep.
func joinCols(cols []column, cell func(column) string, sep string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = cell(c)
	}
	return strings.Join(out, sep)
}

// WriteOut writes eval.json, report.md and credits.png to dir, with every secret s knows
// scrubbed. args is the command line, quoted at the top of the report.
func WriteOut(dir string, rep Report, steps int, args []string, s *secret.Scrubber) error {
	return writeOut(dir, rep, markdown(rep, args), "credits.png", func(path string) error { return DrawCreditsChart(path, rep, steps) }, s)
}

// writeOut writes v as eval.json, md as report.md and the chart draw draws as chart to
// dir, with every secret s knows scrubbed.
func writeOut(dir string, v any, md, chart string, draw func(path string) error, s *secret.Scrubber) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "eval.json"), s.Bytes(append(data, '\n')), 0o644); err != nil {
		return err
	}
	if err := draw(filepath.Join(dir, chart)); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.md"), s.Bytes([]byte(md)), 0o644)
}

// reportHeader starts a report with its title and the command that made it.
func reportHeader(b *strings.Builder, args []string) {
	fmt.Fprintf(b, "# coplay eval\n\n`coplay eval %s`\n\n", strings.Join(args, " "))
}

// markdown is the report: the command, the profiles' means, the chart, the episodes.
func markdown(rep Report, args []string) string {
	var b strings.Builder
	reportHeader(&b, args)
	cols := tableColumns(rep)
	long := joinCols(cols, func(c column) string { return c.long }, " | ")
	align := strings.Repeat("--:|", len(cols))
	b.WriteString("## Profiles (means over episodes)\n\n")
	b.WriteString("| profile | episodes | " + long + " |\n|---|--:|" + align + "\n")
	for _, p := range rep.Profiles {
		fmt.Fprintf(&b, "| %s@%s | %d | %s |\n", p.Profile, p.Version, p.Episodes, joinCols(cols, func(c column) string { return c.prof(p) }, " | "))
	}
	b.WriteString("\n![" + scoreName(rep) + " over steps](credits.png)\n\n## Episodes\n\n")
	b.WriteString("| profile | " + startName(rep) + " | " + long + " |\n|---|--:|" + align + "\n")
	for _, e := range rep.Episodes {
		fmt.Fprintf(&b, "| %s@%s | %s | %s |\n", e.Profile, e.Version, e.startCell(), joinCols(cols, func(c column) string { return c.ep(e) }, " | "))
	}
	for _, e := range rep.Episodes {
		if e.Error != "" {
			fmt.Fprintf(&b, "\n- %s %s ended early: %s\n", e.Profile, e.start(), e.Error)
		}
	}
	WriteModelFailures(&b, rep, "\n- ")
	counts := "\nCounts: "
	if scoreName(rep) == "credits" {
		counts += "contracts are successful fulfill_contract calls; "
	}
	counts += "invalid calls failed schema validation and never ran; failed calls ran and the game refused them (or their outcome was lost); "
	if scoreName(rep) == "credits" {
		counts += "requests are HTTP requests that reached the game server; "
	}
	b.WriteString(counts + "cached tokens are the prompt tokens the provider served from its prompt cache (with their share of the prompt tokens). Costs use the config file's [prices]; a model without a price is \"cost unknown\", and a cost marked ≤ counts cached tokens at the prompt price (the model has no cached_prompt price): the real bill is at most that.\n")
	return b.String()
}

// WriteModelFailures writes a line, after prefix, for each episode some of whose model
// calls failed: how many of its steps, and what the first failure said. Without it an
// eval of an endpoint that is down reads as a profile that played and did nothing.
func WriteModelFailures(w io.Writer, rep Report, prefix string) {
	for _, e := range rep.Episodes {
		if e.ModelFailures > 0 {
			fmt.Fprintf(w, "%s%s %s: the model call failed at %d of %d steps; the first: %s\n", prefix, e.Profile, e.start(), e.ModelFailures, e.Steps, e.ModelError)
		}
	}
}

// hasUpperCost reports whether some cost in rep is an upper bound.
func hasUpperCost(rep Report) bool {
	for _, e := range rep.Episodes {
		if e.Cost != nil && e.CostUpper {
			return true
		}
	}
	return false
}

// scoreName names the score of the report's game ("credits" when it has no episode).
func scoreName(rep Report) string {
	for _, e := range rep.Episodes {
		if e.Score != "" {
			return e.Score
		}
	}
	return "credits"
}

// start says where an episode's world came from: "seed 3", or "from NAME@5" for an
// episode restored from a session's step (its seed is not one the person chose).
func (e Episode) start() string {
	if e.From != "" {
		return "from " + e.From
	}
	return fmt.Sprintf("seed %d", e.Seed)
}

// startCell is start for a table's column: the seed, or the session step.
func (e Episode) startCell() string {
	if e.From != "" {
		return e.From
	}
	return fmt.Sprint(e.Seed)
}

// startName heads the tables' column of startCell: "from" when the episodes were
// restored from a session's step, else "seed".
func startName(rep Report) string {
	for _, e := range rep.Episodes {
		if e.From != "" {
			return "from"
		}
	}
	return "seed"
}
