package universe

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/coplayhq/coplay/game/spacetraders/wire"
)

// wireTypes maps the operations whose data the client decodes to the shared type it
// decodes them into.
var wireTypes = map[string]any{
	"get-my-agent": wire.Agent{}, "get-agent": wire.Agent{}, "get-my-ships": []wire.Ship{}, "get-my-ship": wire.Ship{},
	"get-my-ship-cargo": wire.ShipCargo{}, "get-ship-nav": wire.ShipNav{}, "get-contracts": []wire.Contract{},
	"get-contract": wire.Contract{}, "get-system": wire.System{}, "get-systems": []wire.System{},
	"get-system-waypoints": []wire.Waypoint{}, "get-waypoint": wire.Waypoint{}, "get-market": wire.Market{},
	"get-shipyard": wire.Shipyard{}, "get-jump-gate": wire.JumpGate{},
	"orbit-ship": wire.NavResult{}, "dock-ship": wire.NavResult{}, "navigate-ship": wire.NavResult{}, "patch-ship-nav": wire.NavResult{},
	"refuel-ship": wire.TradeResult{}, "purchase-cargo": wire.TradeResult{}, "sell-cargo": wire.TradeResult{},
	"jettison": wire.CargoResult{}, "transfer-cargo": wire.CargoResult{}, "create-survey": wire.SurveyResult{},
	"extract-resources": wire.ExtractResult{}, "extract-resources-with-survey": wire.ExtractResult{},
	"accept-contract": wire.ContractResult{}, "deliver-contract": wire.ContractResult{}, "fulfill-contract": wire.ContractResult{},
	"negotiateContract": wire.ContractResult{}, "purchase-ship": wire.PurchaseShipResult{}, "create-chart": wire.ChartResult{},
	"jump-ship": wire.JumpResult{},
}

// What the universe sends passes through the shared wire types unchanged: decoded and
// encoded again it is the same JSON. An answer built from anything but the wire type
// the client decodes (a local struct with a field more, a map) fails here.
func TestAnswersRoundTripThroughWireTypes(t *testing.T) {
	c := newTestClient(t, 7, false)
	playthrough(c)
	seen := map[string]bool{}
	for _, ex := range c.log {
		typ, ok := wireTypes[ex.op]
		if !ok || ex.status >= 300 {
			continue
		}
		seen[ex.op] = true
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(ex.body, &env); err != nil {
			t.Fatalf("%s: %v", ex.op, err)
		}
		v := reflect.New(reflect.TypeOf(typ))
		if err := json.Unmarshal(env.Data, v.Interface()); err != nil {
			t.Errorf("%s: decoding into %T: %v", ex.op, typ, err)
			continue
		}
		back, err := json.Marshal(v.Elem().Interface())
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		json.Unmarshal(env.Data, &want)
		json.Unmarshal(back, &got)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: the universe sent\n%s\nthrough %T it becomes\n%s", ex.op, env.Data, typ, back)
		}
	}
	for op := range wireTypes {
		if !seen[op] {
			t.Errorf("%s: not exercised by the playthrough", op)
		}
	}
}
