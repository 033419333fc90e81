package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/coplayhq/coplay/agent/models"
)

func init() { addCommand(newModelsCmd) }

// modelEntry is one model as `coplay models --json` prints it.
type modelEntry struct {
	models.Model
	// Presets are the presets that reach this model by its id.
	Presets []string `json:"presets,omitempty"`
	// PriceFrom says where the price coplay uses comes from: "config" (config.toml's
	// [prices], which wins), "catalogue", or "none".
	PriceFrom string `json:"price_from"`
}

// modelsOutput is what `coplay models --json` prints.
type modelsOutput struct {
	Source string       `json:"source"` // the catalogue's origin: "catwalk v0.52.1"
	Models []modelEntry `json:"models"`
}

// newModelsCmd is `coplay models`.
func newModelsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "models", Short: "list the models coplay knows, with context window and prices (--preset P, --json)", Args: noArgs}
	fs := cmd.Flags()
	preset := fs.String("preset", "", "only the models of this `preset`: "+strings.Join(presetNames(), ", "))
	asJSON := fs.Bool("json", false, "print a JSON object {source, models: [{provider, id, name, window, max_output, price: {in, out, cache_read, cache_write}, presets, price_from}]}")
	cfgPath := fs.String("config", "", "config `file` whose [prices] override the catalogue (default: the user config directory)")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return runModels(preset, asJSON, cfgPath, cmd.OutOrStdout())
	}
	return cmd
}

// runModels lists the catalogue: every model of the presets' providers, or one preset's.
func runModels(preset *string, asJSON *bool, cfgPath *string, stdout io.Writer) error {
	var only *models.Preset
	if *preset != "" {
		p, ok := models.PresetNamed(*preset)
		if !ok {
			return usagef("--preset must be one of %s, not %q%s", strings.Join(presetNames(), ", "), *preset, didYouMean(*preset, presetNames()...))
		}
		only = &p
	}
	file, err := loadConfigFile(*cfgPath, *cfgPath != "")
	if err != nil {
		return err
	}
	out := modelsOutput{Source: models.Source, Models: []modelEntry{}}
	for _, m := range catalogueFor(only) {
		e := modelEntry{Model: m, PriceFrom: priceFromNone, Presets: presetsReaching(m)}
		if only != nil {
			e.ID = strings.TrimPrefix(e.ID, vendorPrefix(only.Name)) // the name --model takes
		}
		if p, ok := file.PriceOf(m.ID); ok {
			e.Price = models.Price{In: p.Prompt, Out: p.Completion, CacheRead: p.CachedPrompt, CacheWrite: e.Price.CacheWrite}
			e.PriceFrom = priceFromConfig
		} else if m.Price.Known() {
			e.PriceFrom = priceFromCatalogue
		}
		out.Models = append(out.Models, e)
	}
	w := stdout // the catalogue and config.toml's prices: nothing a model or game said
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tPRESET\tWINDOW\tIN $/M\tOUT $/M\tCACHE READ\tCACHE WRITE\tPRICE FROM")
	for _, e := range out.Models {
		p := "-"
		if len(e.Presets) > 0 {
			p = strings.Join(e.Presets, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, p, windowText(e.Window),
			dollars(e.Price.In), dollars(e.Price.Out), dollars(e.Price.CacheRead), dollars(e.Price.CacheWrite), e.PriceFrom)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d models, from %s; [prices] in config.toml overrides a price. `coplay models --preset NAME` lists one preset's.\n", len(out.Models), models.Source)
	return nil
}

// catalogueFor lists one preset's models, or those of every hosted preset's provider
// (OpenRouter's hundreds only when asked for).
func catalogueFor(only *models.Preset) []models.Model {
	var out []models.Model
	for _, m := range models.All() {
		reach := presetsReaching(m)
		switch {
		case only != nil && !containsFold(reach, only.Name):
		case only == nil && (len(reach) == 0 || (len(reach) == 1 && reach[0] == "openrouter")):
		default:
			out = append(out, m)
		}
	}
	return out
}

// presetsReaching names the presets whose server takes m by its id: its own provider's
// preset, OpenRouter for OpenRouter's models, mistral for Mistral's models at OpenRouter.
func presetsReaching(m models.Model) []string {
	var out []string
	for _, p := range models.Presets() {
		if p.Local {
			continue
		}
		if got, ok := models.LookupIn(p.Name, strings.TrimPrefix(m.ID, vendorPrefix(p.Name))); ok && got.Provider == m.Provider && got.ID == m.ID {
			out = append(out, p.Name)
		}
	}
	return out
}

// vendorPrefix is what a preset's model ids lack of OpenRouter's (mistralai/).
func vendorPrefix(preset string) string {
	if preset == "mistral" {
		return "mistralai/"
	}
	return ""
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func windowText(n int) string {
	switch {
	case n <= 0:
		return "?"
	case n >= 1_000_000:
		return fmt.Sprintf("%gM", float64(n)/1e6)
	default:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
}

func dollars(p float64) string {
	if p == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3g", p)
}
