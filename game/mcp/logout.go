package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/coplayhq/coplay/secret"
	"golang.org/x/oauth2"
)

// ErrNoGrant is Logout's error when nothing is kept for the server.
var ErrNoGrant = errors.New("no authorization is kept for this server")

// Logout forgets the OAuth grant kept for the MCP server at rawURL (its tokens and the
// client coplay registered), after revoking the tokens where the authorization server
// offers revocation (RFC 7009). The grant is forgotten even when revoking fails. It
// returns what it did, in words for the person.
func Logout(ctx context.Context, rawURL string, store TokenStore, client *http.Client) (string, error) {
	key, err := resourceKey(rawURL)
	if err != nil {
		return "", err
	}
	g, err := store.Load(key)
	if err != nil {
		// Unreadable (corrupt, or written by another version): forget it all the same,
		// since that is what the person came to do and the error told them to.
		if derr := store.Delete(key); derr != nil {
			return "", err
		}
		return fmt.Sprintf("forgot coplay's authorization for %s (kept in %s), which could not be read, so nothing was revoked: a token may stay valid at its authorization server until it expires", key, store.Where()), nil
	}
	if g == nil {
		return "", fmt.Errorf("%w: %s (grants are kept in %s)", ErrNoGrant, key, store.Where())
	}
	if client == nil {
		// A revocation carries the tokens and the client secret: a redirect never takes
		// them to another origin or to plain http.
		client = &http.Client{Transport: secret.HopGuard(nil)}
	}
	var said []string
	switch {
	case g.AccessToken == "" && g.RefreshToken == "":
		said = append(said, "it held no tokens")
	case g.RevocationURL == "":
		said = append(said, "its authorization server offers no revocation, so the tokens stay valid there until they expire")
	case revocationRefused(g.RevocationURL) != nil:
		// Kept before coplay checked it: the tokens and the client secret would cross
		// the network in clear.
		said = append(said, revocationRefused(g.RevocationURL).Error()+": coplay did not send the tokens there, so they stay valid until they expire")
	default:
		var failed []string
		for _, t := range []struct{ token, hint string }{{g.RefreshToken, "refresh_token"}, {g.AccessToken, "access_token"}} {
			if t.token == "" {
				continue
			}
			if err := revoke(ctx, client, g, t.token, t.hint); err != nil {
				failed = append(failed, fmt.Sprintf("the %s: %v", strings.ReplaceAll(t.hint, "_", " "), err))
			}
		}
		if len(failed) == 0 {
			said = append(said, "its authorization server revoked the tokens")
		} else {
			said = append(said, "revoking failed ("+strings.Join(failed, "; ")+"), so a token may stay valid there until it expires")
		}
	}
	if err := store.Delete(key); err != nil {
		return "", err
	}
	return fmt.Sprintf("forgot coplay's authorization for %s (kept in %s); %s", key, store.Where(), strings.Join(said, "; ")), nil
}

// revocationRefused says why coplay will not send tokens to a revocation endpoint:
// OAuth 2.1 has every endpoint on https, and only this machine may be reached over
// plain http (a local test server). Nil when the endpoint may be used.
func revocationRefused(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("the revocation endpoint %q is not an https URL", secret.StripURL(endpoint))
	}
	if secret.PlainHTTP(endpoint) {
		return fmt.Errorf("the revocation endpoint %s is plain http, not https (tokens sent there would travel unencrypted)", secret.StripURL(endpoint))
	}
	return nil
}

// revoke asks the authorization server to revoke one token (RFC 7009 §2.1), with the
// client's authentication as at the token endpoint.
func revoke(ctx context.Context, client *http.Client, g *Grant, token, hint string) error {
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	basic := g.ClientSecret != "" && oauth2.AuthStyle(g.AuthStyle) != oauth2.AuthStyleInParams
	if !basic {
		form.Set("client_id", g.ClientID)
		if g.ClientSecret != "" {
			form.Set("client_secret", g.ClientSecret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.RevocationURL, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic {
		req.SetBasicAuth(url.QueryEscape(g.ClientID), url.QueryEscape(g.ClientSecret))
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %s", g.RevocationURL, netCause(err))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d %s", g.RevocationURL, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return nil
}
