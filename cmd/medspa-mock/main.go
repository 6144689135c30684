// Command medspa-mock runs the MedSpa mock server standalone, for tests in any language.
//
//	medspa-mock -addr 127.0.0.1:8080
//
// At start it prints its base URL and a ready API key (plan enterprise, scope *). More keys,
// isolated accounts and every test control are under /__admin/ (see the README).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/medspa/medspa-go/mockserver"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "medspa-mock:", err)
		os.Exit(1)
	}
}

// run parses flags, serves until ctx is done or SIGINT/SIGTERM arrives, then shuts down
// gracefully, finishing in-flight requests.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("medspa-mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", envOr("MEDSPA_MOCK_ADDR", "127.0.0.1:8080"), "listen address (env MEDSPA_MOCK_ADDR)")
	quiet := fs.Bool("quiet", false, "do not log one line per request")
	privateHooks := fs.Bool("private-webhooks", false, "allow webhook endpoints on private and link-local addresses")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: medspa-mock [flags]\n\nRuns the MedSpa API mock server. Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}

	var opts []mockserver.Option
	if !*quiet {
		opts = append(opts, mockserver.WithLogger(slog.New(slog.NewTextHandler(stderr, nil))))
	}
	if *privateHooks {
		opts = append(opts, mockserver.WithPrivateWebhookURLs())
	}
	srv := mockserver.New(opts...)
	defer srv.Close() // stops webhook delivery
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "MedSpa mock server listening on %s\n", base)
	fmt.Fprintf(stdout, "MEDSPA_BASE_URL=%s\n", base)
	fmt.Fprintf(stdout, "MEDSPA_API_KEY=%s\n", key.Key)
	fmt.Fprintf(stdout, "account=%s\n", key.Account)

	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "medspa-mock: stopped")
	return nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
