// Command oauthserver serves mcptest.OAuthServer, an MCP server behind OAuth whose access
// tokens live a few seconds, for trying coplay's authorization by hand:
//
//	go run ./game/mcp/mcptest/oauthserver -addr 127.0.0.1:8931 -token-life 3s
//	BROWSER='curl -sSL -o /dev/null' coplay run --game mcp --mcp http://127.0.0.1:8931/mcp ...
//
// It prints the MCP URL, then what it saw each time the tokens changed hands, and stops
// on SIGINT or SIGTERM.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/coplayhq/coplay/game/mcp/mcptest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback `address` to listen on")
	life := flag.Duration("token-life", 3*time.Second, "how long an access token lives")
	tick := flag.Duration("tick", 1500*time.Millisecond, "how long the tool tick takes")
	flag.Parse()
	s, err := mcptest.NewOAuthServer(*addr, *life, *tick)
	if err != nil {
		fmt.Fprintln(os.Stderr, "oauthserver:", err)
		os.Exit(1)
	}
	fmt.Println(s.URL)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	var last mcptest.OAuthStats
	for {
		select {
		case <-stop:
			s.Close()
			return
		case <-time.After(200 * time.Millisecond):
		}
		st := s.Stats()
		if st.Registrations != last.Registrations || st.Authorizations != last.Authorizations || st.CodeGrants != last.CodeGrants ||
			st.Refreshes != last.Refreshes || st.Refused != last.Refused || st.Unauthorized != last.Unauthorized || st.Revoked != last.Revoked {
			fmt.Printf("registrations %d (grant_types %v), browser visits %d, codes %d, refreshes %d, refused %d, 401s %d, revoked %d, ticks %d\n",
				st.Registrations, st.RegisteredGrants, st.Authorizations, st.CodeGrants, st.Refreshes, st.Refused, st.Unauthorized, st.Revoked, st.Ticks)
			last = st
		}
	}
}
