package game

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// OpenURL opens a page in the person's browser: $BROWSER (its words, the URL last),
// else the platform's opener. It does not wait for the browser. A server's question
// that points at a page (MCP's URL elicitation) and an authorization flow both use it.
func OpenURL(url string) error {
	var cmd *exec.Cmd
	if b := strings.Fields(os.Getenv("BROWSER")); len(b) > 0 {
		cmd = exec.Command(b[0], append(b[1:], url)...)
	} else {
		switch runtime.GOOS {
		case "darwin":
			cmd = exec.Command("open", url)
		case "windows":
			cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
		default:
			cmd = exec.Command("xdg-open", url)
		}
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() //nolint:errcheck // the browser's exit is not ours to judge
	return nil
}
