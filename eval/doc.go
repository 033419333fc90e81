// Package eval plays episodes — one profile on one seed, headless, every call approved —
// and reports what each did: the game's score over steps, calls that were invalid or
// failed, game requests, tokens, cost and wall time, as tables, JSON, a markdown report
// and a chart.
//
// A league seats several profiles in each world; League rates them from the seats'
// scores with OpenSkill's Weng-Lin Plackett-Luce model (rating.go says why) and reports
// each profile's score ± standard error, rating with its interval, invalid-call rate and
// interventions per 100 actions, and each episode's seats (league_report.go).
//
// It knows no profile and no command line: the caller (package cli) turns a profile into
// a Job whose Open builds the episode's game and brain. eval depends on agent, league,
// game, notes, config and secret, never on cli. An episode's seats play as coplay run's
// do, steered as one league (a single episode is a league of one seat: playSeats).
package eval
