// Package client holds what the model clients (agent/openai, agent/anthropic) share
// beyond the brain contract (agent/brain) and the retries (agent/retry): the HTTP
// client they make their requests with, the defaults of their common settings, how a
// configuration prints without its key, and the token estimate for a server that
// reports none.
package client

import (
	"fmt"
	"net/http"
	"time"

	"github.com/coplayhq/coplay/agent/brain"
	"github.com/coplayhq/coplay/secret"
)

// Defaults for the settings every model client has.
const (
	DefaultMaxRetries = 3
	DefaultTimeout    = 2 * time.Minute
)

// HTTP returns a copy of c (a new client when c is nil) without a timeout: a brain
// bounds each attempt itself, and a client timeout would also cut a long stream that is
// still flowing.
func HTTP(c *http.Client) *http.Client {
	hc := &http.Client{}
	if c != nil {
		cp := *c
		hc = &cp
	}
	hc.Timeout = 0
	return hc
}

// KeyToOrigin returns hc (a copy) such that the key, in header and in Authorization,
// goes only to baseURL's origin: net/http copies such headers to any host a redirect
// names, so the guard takes them off, and it refuses a redirect from https to http.
// A base URL that does not parse leaves hc as it is (the brain's New refuses it anyway).
func KeyToOrigin(hc *http.Client, baseURL, header string) *http.Client {
	o, err := secret.ParseOrigin(baseURL)
	if err != nil {
		return hc
	}
	return (&secret.Guard{Origin: o, Headers: []string{header}}).Client(hc)
}

// Attempts fills the zero values of a client's retries and timeout with the defaults;
// retries below zero mean none.
func Attempts(retries int, timeout time.Duration) (int, time.Duration) {
	if retries == 0 {
		retries = DefaultMaxRetries
	} else if retries < 0 {
		retries = 0
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return retries, timeout
}

// Shown are how a configuration prints its key, "[set]" or "[none]" and never the key
// itself, and its temperature, "default" when it has none.
func Shown(key string, temperature *float32) (keyText, tempText string) {
	keyText, tempText = "[none]", "default"
	if key != "" {
		keyText = "[set]"
	}
	if temperature != nil {
		tempText = fmt.Sprint(*temperature)
	}
	return keyText, tempText
}

// EstimateTokens is the usual rough rule for a server that gives no counts: four
// characters a token.
func EstimateTokens(chars int) int {
	if chars <= 0 {
		return 0
	}
	return (chars + 3) / 4
}

// CompletionChars measures what the model wrote, for estimating its tokens.
func CompletionChars(r brain.Reply) int {
	n := len(r.Text)
	for _, t := range r.Thinking {
		n += len(t.Text)
	}
	for _, c := range r.Calls {
		n += len(c.Tool) + len(c.Args)
	}
	return n
}
