package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/stead-dev/stead/daemon"
)

func newUICmd(f *Factory) *cobra.Command {
	var urlOnly, asJSON bool
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Open the control room in a browser, signed in",
		Long: `Open stead's control room, the web pages the daemon serves, in your browser,
already signed in: every CLI's sessions, their timelines, search, comparisons,
usage, and the live runs. The daemon is started when none runs.

The control room listens on loopback and answers only requests that carry its
token: the browser gets it from a one-time sign-in URL (usable once, within two
minutes) that sets an HttpOnly cookie. With --url the URL is printed instead of
opened; with --json, {"url", "base", "token"} for scripts, which send the token
as a bearer token (docs/api.md).`,
		Example: `  # Open the control room
  stead ui
  # Print a one-time sign-in URL (to open in another browser)
  stead ui --url
  # The API's address and token, for a script
  stead ui --url --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return uiRun(cmd.Context(), f, urlOnly || asJSON, asJSON)
		},
	}
	cmd.Flags().BoolVar(&urlOnly, "url", false, "print the sign-in URL instead of opening a browser")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"url", "base", "token"} as JSON`)
	return cmd
}

func uiRun(ctx context.Context, f *Factory, urlOnly, asJSON bool) error {
	b, err := connectBus(ctx, f, BusFlags{}, true)
	if err != nil {
		return err
	}
	b.Close()
	info, err := daemon.Read(f.Env)
	if err != nil {
		return err
	}
	if info.Web == "" || info.WebToken == "" {
		return fmt.Errorf("the stead daemon (pid %d) serves no control room (started with --web off, or by an older stead): stead serve stop, then stead ui", info.PID)
	}
	code, err := signInCode(ctx, info)
	if err != nil {
		return err
	}
	url := info.Web + "/signin?code=" + code
	if asJSON {
		return printJSON(f.IO.RawOut(), map[string]string{"url": url, "base": info.Web, "token": info.WebToken})
	}
	if urlOnly {
		fmt.Fprintln(f.IO.Out, url)
		return nil
	}
	fmt.Fprintf(f.IO.ErrOut, "stead: opening the control room (%s); if no browser opens, this sign-in URL works once within two minutes:\n%s\n", info.Web, url)
	if err := openBrowser(f, url); err != nil {
		fmt.Fprintf(f.IO.ErrOut, "stead: no browser opened: %v\n", err)
	}
	return nil
}

// signInCode asks the daemon's control room for a one-time sign-in code.
func signInCode(ctx context.Context, info daemon.Info) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, info.Web+"/api/v1/signin", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+info.WebToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("the control room (%s) does not answer: %w", info.Web, err)
	}
	defer resp.Body.Close()
	var body struct {
		Code  string `json:"code"`
		Error string `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK || body.Code == "" {
		return "", fmt.Errorf("the control room (%s) refused to sign in: %s %s", info.Web, resp.Status, body.Error)
	}
	return body.Code, nil
}

// openBrowser opens url in the user's browser: $BROWSER, else the
// system's opener.
func openBrowser(f *Factory, url string) error {
	var name string
	var args []string
	switch {
	case f.Env.Get("BROWSER") != "":
		name = f.Env.Get("BROWSER")
	case runtime.GOOS == "darwin":
		name = "open"
	case runtime.GOOS == "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return errors.New("set $BROWSER, or open the URL above yourself")
	}
	c := exec.Command(path, append(args, url)...)
	if err := c.Start(); err != nil {
		return err
	}
	go c.Wait()
	return nil
}
