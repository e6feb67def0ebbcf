package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/relay-agent/relay/internal/config"
	"github.com/relay-agent/relay/internal/llm/cloudcode"
	"github.com/relay-agent/relay/internal/models"
)

// The model catalog service the original refreshes from, per provider:
// GET {base}/api/models/providers/{id}?types=chat,image,classifier,
// revalidated with If-None-Match.
const (
	catalogBaseURL = "https://pi.dev"
	catalogTypes   = "chat,image,classifier"
	// catalogAttemptTimeout bounds one provider's request; catalogTimeout
	// a whole refresh (the RPC mode's 15 s).
	catalogAttemptTimeout = 4 * time.Second
	catalogTimeout        = 15 * time.Second
	// maxCatalogBody bounds one provider's catalog.
	maxCatalogBody = 16 << 20
)

// catalogFetcher asks base for one provider's catalog over hc.
func catalogFetcher(hc *http.Client, base string) models.CatalogFetcher {
	if hc == nil {
		hc = http.DefaultClient
	}
	return func(ctx context.Context, provider, etag string) (models.Fetched, error) {
		ctx, cancel := context.WithTimeout(ctx, catalogAttemptTimeout)
		defer cancel()
		u := strings.TrimRight(base, "/") + "/api/models/providers/" + url.PathEscape(provider) + "?types=" + url.QueryEscape(catalogTypes)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return models.Fetched{}, err
		}
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", "relay/"+Version)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return models.Fetched{}, fmt.Errorf("model catalog for %s: %w", provider, err)
		}
		defer resp.Body.Close()
		f := models.Fetched{Status: resp.StatusCode, ETag: resp.Header.Get("ETag")}
		if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
			f.LastModified = t
		}
		if resp.StatusCode == http.StatusOK {
			body, err := io.ReadAll(io.LimitReader(resp.Body, maxCatalogBody+1))
			if err != nil {
				return models.Fetched{}, fmt.Errorf("model catalog for %s: %w", provider, err)
			}
			if len(body) > maxCatalogBody {
				return models.Fetched{}, fmt.Errorf("model catalog for %s is larger than %d bytes", provider, maxCatalogBody)
			}
			f.Body = body
		}
		return f, nil
	}
}

// withAccountCatalogs answers for the providers whose models the signed-in
// account lists (Antigravity's fetchAvailableModels, as the original
// discovers them) instead of the catalog service; without a sign-in such a
// provider is absent.
func withAccountCatalogs(fetch models.CatalogFetcher, reg *models.Registry, hc *http.Client) models.CatalogFetcher {
	return func(ctx context.Context, provider, etag string) (models.Fetched, error) {
		if provider != cloudcode.Antigravity {
			return fetch(ctx, provider, etag)
		}
		if reg.AuthSource(provider) != models.SourceAuthOAuth {
			return models.Fetched{Status: http.StatusNotFound}, nil
		}
		use, err := reg.OAuthUse(ctx, provider, models.RefreshMargin)
		if err != nil {
			return models.Fetched{}, err
		}
		ctx, cancel := context.WithTimeout(ctx, catalogAttemptTimeout)
		defer cancel()
		body, err := cloudcode.AntigravityModels(ctx, hc, cloudcode.Account{Access: use.APIKey, Project: use.Headers["X-Goog-User-Project"],
			BaseURL: use.BaseURL, Version: reg.ProviderEnv(provider)("RELAY_AI_ANTIGRAVITY_VERSION")})
		if err != nil {
			return models.Fetched{}, err
		}
		return models.Fetched{Status: http.StatusOK, Body: body, LastModified: time.Now()}, nil
	}
}

// runUpdateModels is relay update --models: every built-in provider's
// catalog is refreshed now (even offline: the person asked for it), and
// what changed is printed.
func runUpdateModels(ctx context.Context, env config.Env, base string, hc *http.Client, stdout, stderr io.Writer) int {
	agentDir, err := env.AgentDir()
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	reg, _ := models.Load(agentDir, env.Get) // a models.json error does not stop a catalog refresh
	signIns := newSignIns(env, reg)          // Antigravity's list is asked with the sign-in's token
	reg.SetOAuth(signIns.OAuth, signIns.IDs()...)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(len(models.Providers()))*catalogAttemptTimeout)
	defer cancel()
	res, err := reg.RefreshCatalog(ctx, models.RefreshOptions{Fetch: withAccountCatalogs(catalogFetcher(hc, base), reg, hc), Force: true})
	updated, unchanged := 0, 0
	for _, r := range res {
		switch r.Status {
		case "updated":
			updated++
			fmt.Fprintf(stdout, "%s: %d models\n", r.Provider, r.Models)
		case "unchanged":
			unchanged++
		}
	}
	fmt.Fprintf(stdout, "Model catalogs refreshed: %d updated, %d unchanged, %d providers checked.\n", updated, unchanged, len(res))
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return 1
	}
	return 0
}

// startCatalogRefresh refreshes, in the background, the catalogs of the
// providers that have credentials and were not checked for four hours
// (RPC and interactive modes). Silent: offline (--offline, RELAY_OFFLINE)
// it does nothing, and failures leave the stored catalogs as they were.
// done, when not nil, is closed when it has finished.
func startCatalogRefresh(ctx context.Context, env config.Env, reg *models.Registry, base string, hc *http.Client, done chan<- struct{}) {
	if env.Offline || reg == nil {
		if done != nil {
			close(done)
		}
		return
	}
	go func() {
		if done != nil {
			defer close(done)
		}
		ctx, cancel := context.WithTimeout(ctx, catalogTimeout)
		defer cancel()
		_, _ = reg.RefreshCatalog(ctx, models.RefreshOptions{Fetch: withAccountCatalogs(catalogFetcher(hc, base), reg, hc)})
	}()
}
