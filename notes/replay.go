package notes

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// PlanVersion is one stored version of the plan, for reading a session back step by
// step (coplay sessions replay).
type PlanVersion struct {
	Version int        `json:"version"`
	Steps   []PlanStep `json:"steps"`
	Step    int        `json:"step"` // the agent step that wrote it
	Time    time.Time  `json:"time"`
}

// PlanHistory returns every stored version of the plan, oldest first.
func (s *Session) PlanHistory() ([]PlanVersion, error) {
	var out []PlanVersion
	err := s.view(func(sb *bolt.Bucket) error {
		return versions(sb.Bucket(bucketPlan), 1, legacyPlan, func(k []byte, v textVersion) error {
			pv := PlanVersion{Version: int(binary.BigEndian.Uint64(k)), Step: v.Step, Time: v.Time}
			if err := json.Unmarshal(v.Text, &pv.Steps); err != nil {
				return fmt.Errorf("%w: %w", ErrCorrupt, err)
			}
			out = append(out, pv)
			return nil
		})
	})
	if err != nil {
		return nil, planErr(err)
	}
	return out, nil
}
