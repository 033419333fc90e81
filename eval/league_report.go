package eval

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/coplayhq/coplay/secret"
)

// LeagueChart is the file name of the league's chart in WriteLeagueOut's dir.
const LeagueChart = "rating.png"

// table is a table of text cells, printed for a terminal (WriteLeagueTables) or as
// markdown (report.md) from the same rows.
type table struct {
	head []string
	rows [][]string
}

// text prints t aligned in columns, numbers to the right.
func (t table) text(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	for _, r := range append([][]string{t.head}, t.rows...) {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
}

// markdown writes t as a markdown table, its first column to the left, the others to
// the right.
func (t table) markdown(b *strings.Builder) {
	b.WriteString("| " + strings.Join(t.head, " | ") + " |\n|---|")
	b.WriteString(strings.Repeat("--:|", len(t.head)-1) + "\n")
	for _, r := range t.rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

// leagueProfiles is the table of profiles: the score's mean ± standard error, the
// rating and its interval, places, invalid calls and interventions.
func leagueProfiles(rep LeagueReport) table {
	name := leagueScoreName(rep)
	t := table{head: []string{"profile", "rank", "rating (mu-3σ)", "mu ± σ", "interval (mu ± 3σ)", "episodes", "seats", "first places",
		name + " mean ± s.e.", "invalid calls", "interventions /100 actions", "errors"}}
	for _, p := range rep.Profiles {
		r := p.Rating
		t.rows = append(t.rows, []string{p.Profile + "@" + p.Version, fmt.Sprint(p.Rank), fmt.Sprintf("%.2f", r.Ordinal),
			fmt.Sprintf("%.2f ± %.2f", r.Mu, r.Sigma), fmt.Sprintf("%.2f … %.2f", r.Low, r.High),
			fmt.Sprint(p.Episodes), fmt.Sprint(p.Seats), fmt.Sprint(p.FirstPlaces), meanSEText(p.ScoreMean, p.ScoreSE),
			rateText(p.InvalidRate, 100, "%", fmt.Sprintf(" (%d of %d)", p.Invalid, p.Proposed)),
			rateText(p.InterventionsPer100, 1, "", fmt.Sprintf(" (%d in %d)", p.Interventions, p.Acts)), fmt.Sprint(p.Errors)})
	}
	return t
}

// leagueEpisodes is the table of episodes, a row per seat.
func leagueEpisodes(rep LeagueReport) table {
	t := table{head: []string{"seed", "seat", "profile", "community", leagueScoreName(rep), "place", "steps", "calls", "invalid", "acts", "vetoes", "edits", "advice", "moves", "questions"}}
	for _, e := range rep.Episodes {
		for _, s := range e.Seats {
			place := fmt.Sprint(s.Place)
			if s.Place == 0 {
				place = "-"
			}
			t.rows = append(t.rows, []string{fmt.Sprint(e.Seed), s.Seat, s.Profile + "@" + s.Version, cmp.Or(s.Community, "-"), fmtScore(s.Score), place,
				fmt.Sprint(s.Steps), fmt.Sprint(s.Proposed), fmt.Sprint(s.Invalid), fmt.Sprint(s.Acts), fmt.Sprint(s.Vetoes), fmt.Sprint(s.Edits), fmt.Sprint(s.Advice),
				fmt.Sprint(s.Moves), fmt.Sprint(s.Questions)})
		}
	}
	return t
}

// leagueFailures writes a line, after prefix, for each episode or seat that ended early.
func leagueFailures(w io.Writer, rep LeagueReport, prefix string) {
	for _, e := range rep.Episodes {
		if e.Error != "" {
			fmt.Fprintf(w, "%sseed %d failed and is not rated: %s\n", prefix, e.Seed, e.Error)
		}
		for _, s := range e.Seats {
			if s.Error != "" {
				fmt.Fprintf(w, "%sseed %d, seat %s (%s) ended early: %s\n", prefix, e.Seed, s.Seat, s.Profile, s.Error)
			}
		}
	}
}

// WriteLeagueTables prints the league's profile and episode tables.
func WriteLeagueTables(w io.Writer, rep LeagueReport) {
	fmt.Fprintln(w, "Profiles (rating: "+rep.RatingModel+")")
	leagueProfiles(rep).text(w)
	fmt.Fprintln(w, "\nEpisodes")
	leagueEpisodes(rep).text(w)
	leagueFailures(w, rep, "  ")
}

// WriteLeagueOut writes eval.json, report.md and rating.png to dir, with every secret s
// knows scrubbed. args is the command line, quoted at the top of the report.
func WriteLeagueOut(dir string, rep LeagueReport, args []string, s *secret.Scrubber) error {
	return writeOut(dir, rep, leagueMarkdown(rep, args), LeagueChart, func(path string) error { return DrawRatingChart(path, rep) }, s)
}

// leagueMarkdown is the league's report: the command, the profiles, the chart, the
// episodes, and what the numbers mean.
func leagueMarkdown(rep LeagueReport, args []string) string {
	var b strings.Builder
	reportHeader(&b, args)
	b.WriteString("## Profiles\n\n")
	leagueProfiles(rep).markdown(&b)
	b.WriteString("\n![rating over episodes](" + LeagueChart + ")\n\n## Episodes\n\n")
	leagueEpisodes(rep).markdown(&b)
	leagueFailures(&b, rep, "\n- ")
	fmt.Fprintf(&b, "\nRating: %s. Every profile starts at mu 25, sigma 8.33; each episode's seats are ranked by %s (equal scores tie) and the ratings updated, episodes in seed order. The rating shown is mu - 3 sigma, so a profile ranks high only once the episodes show it is good; the interval is mu ± 3 sigma. Score mean ± standard error is over the profile's seats. Invalid calls are the share of proposed calls that failed validation; interventions are the person's vetoes, edits, advice, own moves and questions, per 100 Act calls run.\n", rep.RatingModel, leagueScoreName(rep))
	return b.String()
}

// DrawRatingChart writes a PNG of each profile's rating over the episodes: mu thick,
// mu ± 3 sigma thin.
func DrawRatingChart(path string, rep LeagueReport) error {
	lines := chartLines{lo: math.Inf(1), hi: math.Inf(-1)}
	n := 0
	for i, p := range rep.Profiles {
		col := chartColors[i%len(chartColors)]
		mu, low, high := make([]float64, len(p.history)), make([]float64, len(p.history)), make([]float64, len(p.history))
		for k, r := range p.history {
			mu[k], low[k], high[k] = r.Mu, r.Mu-3*r.Sigma, r.Mu+3*r.Sigma
			lines.lo, lines.hi = math.Min(lines.lo, low[k]), math.Max(lines.hi, high[k])
		}
		lines.thin = append(lines.thin, chartLine{low, lighten(col)}, chartLine{high, lighten(col)})
		lines.thick = append(lines.thick, chartLine{mu, col})
		lines.legend = append(lines.legend, fmt.Sprintf("%s@%s: mu %.1f, sigma %.1f", p.Profile, p.Version, p.Rating.Mu, p.Rating.Sigma))
		n = max(n, len(p.history)-1)
	}
	return drawChart(path, lines, n, "episodes", "rating (mu; thin: mu +/- 3 sigma)")
}

// meanSEText is "12.50 ± 0.80" (whole numbers once the error is 10 or more), or the
// mean alone without a standard error.
func meanSEText(mean float64, se *float64) string {
	switch {
	case se == nil:
		return fmtScore(mean)
	case *se >= 10:
		return fmt.Sprintf("%.0f ± %.0f", mean, *se)
	}
	return fmt.Sprintf("%.2f ± %.2f", mean, *se)
}

// rateText is a rate scaled by scale with its unit and detail ("7.5% (3 of 40)"), or
// "-" with the detail when there is none.
func rateText(r *float64, scale float64, unit, detail string) string {
	if r == nil {
		return "-" + detail
	}
	return fmt.Sprintf("%.1f%s%s", *r*scale, unit, detail)
}

// fmtScore writes a score: a whole number as it is (175000), any other with two
// decimals (12.50).
func fmtScore(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// leagueScoreName names the league's score ("score" when no episode named it).
func leagueScoreName(rep LeagueReport) string {
	if rep.Score == "" {
		return "score"
	}
	return rep.Score
}
