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

// WriteTables prints the episode and profile tables.
func WriteTables(w io.Writer, rep Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "Episodes")
	fmt.Fprintln(tw, "profile\tseed\tsteps\t"+scoreName(rep)+" start\tend\tper 1k steps\tcontracts\tinvalid\tfailed\trequests\tprompt tok\tcached\tcompl tok\tcost\twall s\t")
	for _, e := range rep.Episodes {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t%.0f\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%s\t%.1f\t\n", e.Profile+"@"+e.Version, e.Seed, e.Steps,
			e.ScoreStart, e.ScoreEnd, e.ScorePer1000, e.ContractsFulfilled, e.InvalidCalls, e.FailedCalls,
			e.GameRequests, e.PromptTokens, cachedText(float64(e.CachedTokens), float64(e.PromptTokens)), e.CompletionTokens,
			costText(e.Cost, e.CostUpper), e.WallSeconds)
	}
	tw.Flush()
	for _, e := range rep.Episodes {
		if e.Error != "" {
			fmt.Fprintf(w, "  %s seed %d ended early: %s\n", e.Profile, e.Seed, e.Error)
		}
	}
	WriteModelFailures(w, rep, "  ")
	fmt.Fprintln(w, "\nProfiles (means over episodes)")
	fmt.Fprintln(tw, "profile\tepisodes\tsteps\t"+scoreName(rep)+" start\tend\tper 1k steps\tcontracts\tinvalid\tfailed\trequests\tprompt tok\tcached\tcompl tok\tcost\twall s\t")
	for _, p := range rep.Profiles {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%s\t%.0f\t%s\t%.1f\t\n", p.Profile+"@"+p.Version, p.Episodes, p.Steps,
			p.ScoreStart, p.ScoreEnd, p.ScorePer1000, p.ContractsFulfilled, p.InvalidCalls, p.FailedCalls,
			p.GameRequests, p.PromptTokens, cachedText(p.CachedTokens, p.PromptTokens), p.CompletionTokens, costText(p.Cost, p.CostUpper), p.WallSeconds)
	}
	tw.Flush()
	if hasUpperCost(rep) {
		fmt.Fprintln(w, "\n≤ $x: the model has no cached_prompt price in [prices], so cached tokens count at the prompt price; the real bill is at most this.")
	}
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
	b.WriteString("## Profiles (means over episodes)\n\n")
	name := scoreName(rep)
	b.WriteString("| profile | episodes | steps | " + name + " start | " + name + " end | per 1k steps | contracts | invalid | failed | requests | prompt tokens | cached tokens | completion tokens | cost | wall s |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, p := range rep.Profiles {
		fmt.Fprintf(&b, "| %s@%s | %d | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %.1f | %.0f | %.0f | %s | %.0f | %s | %.1f |\n",
			p.Profile, p.Version, p.Episodes, p.Steps, p.ScoreStart, p.ScoreEnd, p.ScorePer1000, p.ContractsFulfilled,
			p.InvalidCalls, p.FailedCalls, p.GameRequests, p.PromptTokens, cachedText(p.CachedTokens, p.PromptTokens), p.CompletionTokens,
			costText(p.Cost, p.CostUpper), p.WallSeconds)
	}
	b.WriteString("\n![" + name + " over steps](credits.png)\n\n## Episodes\n\n")
	b.WriteString("| profile | seed | steps | " + name + " start | " + name + " end | per 1k steps | contracts | invalid | failed | requests | prompt tokens | cached tokens | completion tokens | cost | wall s |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, e := range rep.Episodes {
		fmt.Fprintf(&b, "| %s@%s | %d | %d | %.0f | %.0f | %.0f | %d | %d | %d | %d | %d | %s | %d | %s | %.1f |\n",
			e.Profile, e.Version, e.Seed, e.Steps, e.ScoreStart, e.ScoreEnd, e.ScorePer1000, e.ContractsFulfilled,
			e.InvalidCalls, e.FailedCalls, e.GameRequests, e.PromptTokens, cachedText(float64(e.CachedTokens), float64(e.PromptTokens)),
			e.CompletionTokens, costText(e.Cost, e.CostUpper), e.WallSeconds)
	}
	for _, e := range rep.Episodes {
		if e.Error != "" {
			fmt.Fprintf(&b, "\n- %s seed %d ended early: %s\n", e.Profile, e.Seed, e.Error)
		}
	}
	WriteModelFailures(&b, rep, "\n- ")
	b.WriteString("\nCounts: contracts are successful fulfill_contract calls; invalid calls failed schema validation and never ran; failed calls ran and the game refused them (or their outcome was lost); requests are HTTP requests that reached the game server; cached tokens are the prompt tokens the provider served from its prompt cache (with their share of the prompt tokens). Costs use the config file's [prices]; a model without a price is \"cost unknown\", and a cost marked ≤ counts cached tokens at the prompt price (the model has no cached_prompt price): the real bill is at most that.\n")
	return b.String()
}

// WriteModelFailures writes a line, after prefix, for each episode some of whose model
// calls failed: how many of its steps, and what the first failure said. Without it an
// eval of an endpoint that is down reads as a profile that played and did nothing.
func WriteModelFailures(w io.Writer, rep Report, prefix string) {
	for _, e := range rep.Episodes {
		if e.ModelFailures > 0 {
			fmt.Fprintf(w, "%s%s seed %d: the model call failed at %d of %d steps; the first: %s\n", prefix, e.Profile, e.Seed, e.ModelFailures, e.Steps, e.ModelError)
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
