package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/toolhost/toolhost/host/internal/mcpproto"
	"github.com/toolhost/toolhost/host/internal/mcpserver"
)

// runServe serves MCP: over stdio, or Streamable HTTP on httpAddr when set;
// the six generic tools, or the curated surface surfaceName when set; dev
// turns the approval lock off (loudly). It returns when the client goes
// away (stdin closes) or ctx ends (the first SIGTERM), after the calls in
// flight are answered and every plugin is stopped. When the force context
// ends too (a second signal) it stops at once, cancelling the calls in
// flight, and returns an error.
func runServe(ctx context.Context, httpAddr, surfaceName string, dev bool, ops *httpFlags) error {
	// stdout is the protocol: keep it for the transport before anything can
	// print, and point descriptor 1 at stderr.
	var out *os.File
	if httpAddr == "" {
		var err error
		if out, err = mcpproto.GuardStdout(); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	a := newAppDev(os.Stderr, hclog.Info, dev, true)
	defer a.close()
	// One scan at start, shared with the watcher.
	w, werr := a.registry.StartWatch()
	if werr != nil {
		a.logger.Warn("registry watcher not started; plugins are read at start only", "error", werr)
		a.registry.Scan()
	}
	a.pruneAtStart(a.registry.Snapshot())

	// The watcher keeps the snapshot live so hot-loaded plugins show up in
	// capabilities (and the supervisor in step with it); it stops with the
	// session, before the plugins are stopped.
	bgCtx, stopBackground := context.WithCancel(ctx)
	bgDone := make(chan struct{})
	go func() {
		defer close(bgDone)
		a.background(bgCtx, w)
	}()
	defer func() { stopBackground(); <-bgDone }()

	var cfg *opsConfig
	if httpAddr != "" {
		var err error
		if cfg, err = ops.build(a); err != nil {
			return err
		}
		if cfg.metrics != nil {
			stop, err := serveMetrics(ctx, a, ops.metricsAddr, cfg.metrics)
			if err != nil {
				return err
			}
			defer stop()
		}
	}
	var srv *mcpproto.Server
	if surfaceName != "" {
		var err error
		if srv, err = curatedServer(a, surfaceName); err != nil {
			return err
		}
	} else {
		// Subscribe before the first sync, so no change falls between.
		changes := a.registry.Changes()
		gs := mcpserver.New(mcpserver.Options{Registry: a.registry, Runner: a.callRunner(),
			CapabilitiesMaxBytes: a.capsMaxBytes, Version: version, Logger: a.logger, Content: a.supervisor})
		srv = gs.Server
		// Prompts and resources follow plugins as they come and go.
		contentDone := make(chan struct{})
		go func() {
			defer close(contentDone)
			gs.FollowContent(bgCtx, changes)
		}()
		defer func() { stopBackground(); <-contentDone }()
	}
	force := forceContext(ctx)
	var err error
	if httpAddr != "" {
		err = mcpproto.ServeHTTP(force, srv, mcpproto.HTTPOptions{Addr: httpAddr,
			Token: os.Getenv("HOST_HTTP_TOKEN"), Logger: a.logger.Named("http"), Stop: ctx.Done(),
			Wrap: cfg.wrap, Authenticated: cfg.authenticated, TLSCert: ops.tlsCert, TLSKey: ops.tlsKey})
	} else {
		a.logger.Info("serving MCP on stdio", "tools_digest", srv.ToolsDigest())
		err = srv.Run(force, &mcpproto.StdioTransport{In: os.Stdin, Out: out, Versions: srv.Versions(),
			Logger: a.logger.Named("stdio"), Stop: ctx.Done()})
	}
	if ctx.Err() != nil {
		a.logger.Info("stopped by a signal", "calls_in_flight_answered", force.Err() == nil)
	}
	if err == nil && force.Err() != nil && force != ctx {
		err = errors.New("serve: stopped by a second signal: the calls in flight were cancelled")
	}
	return err
}
