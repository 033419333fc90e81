package agent

import (
	"encoding/json"
	"fmt"
)

// MarshalCommand writes c as one headless command line that ParseCommand reads back as
// c: exactly the fields the command takes, its required ones always (keep_playing's
// and take_over's "on": false too), the others when set. A client that speaks the protocol to another
// coplay (coplay attach) sends commands this way.
func MarshalCommand(c Command) ([]byte, error) {
	if err := checkShape(c); err != nil {
		return nil, err
	}
	spec := commandFields[c.Cmd]
	var all map[string]json.RawMessage
	b, err := json.Marshal(struct {
		Command
		Allow bool `json:"allow"`
		On    bool `json:"on"`
		Force bool `json:"force"`
	}{c, c.Allow, c.On, c.Force})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{"cmd": all["cmd"]}
	if c.Seat != "" {
		out["seat"] = all["seat"]
	}
	for _, k := range spec.allowed {
		v, ok := all[k]
		if !ok {
			continue
		}
		if !contains(spec.required, k) && (k == "allow" || k == "on" || k == "force") && string(v) == "false" {
			continue
		}
		out[k] = v
	}
	for _, k := range spec.required {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("command %s: field %q is required", c.Cmd, k)
		}
	}
	return json.Marshal(out)
}
