// Package app wires atcp together: it opens the store, anchors the clock,
// loads the signing key, builds every area's service, registers every
// endpoint, bootstraps the configured credentials and the demonstration
// environment, and serves until told to stop.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"atcp/internal/adapters/mqtt"
	"atcp/internal/adapters/simulated"
	"atcp/internal/adapters/simulated/simulatedhttp"
	"atcp/internal/alarms"
	"atcp/internal/alarms/alarmshttp"
	"atcp/internal/alarms/alarmstream"
	"atcp/internal/alarms/fault"
	"atcp/internal/alarms/faulthttp"
	"atcp/internal/assets"
	"atcp/internal/assets/assetshttp"
	"atcp/internal/auth"
	"atcp/internal/clock"
	"atcp/internal/config"
	"atcp/internal/contacts"
	"atcp/internal/contacts/contactshttp"
	"atcp/internal/control"
	"atcp/internal/dispatch"
	"atcp/internal/dispatch/dispatchhttp"
	"atcp/internal/events"
	"atcp/internal/events/natsbus"
	"atcp/internal/httpapi"
	"atcp/internal/identity"
	"atcp/internal/identity/identityhttp"
	"atcp/internal/markets/afrr"
	"atcp/internal/markets/afrr/afrrhttp"
	"atcp/internal/markets/bids"
	"atcp/internal/markets/fcr"
	"atcp/internal/markets/fcr/fcrhttp"
	"atcp/internal/markets/replay"
	"atcp/internal/markets/simulation"
	"atcp/internal/objstore"
	"atcp/internal/onboarding"
	"atcp/internal/onboarding/branding"
	"atcp/internal/onboarding/branding/brandinghttp"
	"atcp/internal/onboarding/comments"
	"atcp/internal/onboarding/comments/commentshttp"
	"atcp/internal/onboarding/documents"
	"atcp/internal/onboarding/documents/documentshttp"
	"atcp/internal/onboarding/dplsvc"
	"atcp/internal/onboarding/dplsvc/dplhttp"
	"atcp/internal/onboarding/fields"
	"atcp/internal/onboarding/fields/fieldshttp"
	"atcp/internal/onboarding/magic"
	"atcp/internal/onboarding/notify"
	"atcp/internal/onboarding/onboardinghttp"
	"atcp/internal/onboarding/prequal"
	"atcp/internal/onboarding/prequal/prequalhttp"
	"atcp/internal/onboarding/reminders"
	"atcp/internal/onboarding/reminders/remindershttp"
	"atcp/internal/onboarding/tasks"
	"atcp/internal/onboarding/tasks/taskshttp"
	"atcp/internal/pools"
	"atcp/internal/pools/poolshttp"
	"atcp/internal/portfolio"
	"atcp/internal/portfolio/portfoliohttp"
	"atcp/internal/reporting/afrrreport"
	"atcp/internal/reporting/afrrreport/afrrreporthttp"
	"atcp/internal/reporting/fcrreport"
	"atcp/internal/reporting/fcrreport/fcrreporthttp"
	"atcp/internal/restrictions"
	"atcp/internal/restrictions/restrictionshttp"
	"atcp/internal/segmentation"
	"atcp/internal/segmentation/segmentationhttp"
	"atcp/internal/settlement"
	"atcp/internal/settlement/settlementhttp"
	"atcp/internal/store"
	"atcp/internal/store/workload"
	"atcp/internal/telemetry"
	"atcp/internal/telemetry/assetstate"
	"atcp/internal/telemetry/telemetryhttp"
	"atcp/internal/worker"
)

// Version is the build's version, set with -ldflags "-X atcp/internal/app.Version=...".
var Version = "dev"

// App is a configured, migrated server ready to serve.
type App struct {
	Config       config.Config
	Log          *slog.Logger
	Store        store.Backend
	Clock        clock.Clock // the platform clock: markets, assets, records
	Security     clock.Clock // the machine's: credential lifetimes, lockouts (docs/authentication.md)
	Tokens       *auth.Tokens
	Credentials  *identity.CredentialCheck // is a token still in force
	Server       *httpapi.Server
	Directory    *identity.Directory
	Clients      *identity.Clients
	Assets       *assets.Service
	Segmentation *segmentation.Service
	Restrictions *restrictions.Service
	Contacts     *contacts.Service
	Backup       *afrr.BackupService
	FCR          *fcr.Service
	Capacity     *afrr.CapacityService
	Energy       *afrr.EnergyService
	Market       *simulation.Market
	Portfolio    *portfolio.Service
	AFRRReports  *afrrreport.Service
	Dispatch     *dispatch.Service
	State        *assetstate.Service
	Alarms       *alarms.Service
	Pools        *pools.Service
	// Onboarding runs the onboarding workflows; the onboarding groups
	// register their requirement checks and hooks on it.
	Onboarding *onboarding.Service
	// DPL runs the onboardings' data-point lists and communication tests
	// (LatestTest for the task detail).
	DPL *dplsvc.Service
	// Reminders reminds onboarding gates of their deadlines (its job and
	// endpoints); built without Sender and Recipients until the notify
	// and contacts groups provide them.
	Reminders *reminders.Service
	// Faults assembles fault evidence, drafts fault messages, declares
	// faults and reads incidents; incidents opens the incidents of paging
	// alarms on production-critical assets.
	Faults    *fault.Service
	incidents *fault.Opener
	// Control is the control loop; nil when ATCP_SIMULATE is false.
	Control *control.Loop
	// afrrEvents stores the loop's aFRR dispatch events off its goroutine
	// (nil without the loop).
	afrrEvents *afrrreport.Writer
	// mqtt is the MQTT adapter when ATCP_MQTT_URL names a broker.
	mqtt *mqtt.Adapter
	// Outbox takes the events the event bus delivers (docs/events.md);
	// bus publishes them to NATS when ATCP_NATS_URL is set.
	Outbox *events.Outbox
	bus    *natsbus.Publisher
	// AlarmStream fans the alarm events out to this instance's WebSockets.
	AlarmStream *alarmstream.Hub
	// OnboardingMailer enqueues the onboarding e-mails (gate changes,
	// access links, comments, reminders).
	OnboardingMailer *notify.Mailer
	// Objects keeps uploaded files (onboarding documents, e-mail banners);
	// closeObjects releases the embedded one's directory.
	Objects      objstore.Store
	closeObjects func() error
	// Branding is the organisations' onboarding branding; its Resolve
	// gives the onboarding e-mails theirs.
	Branding *branding.Service
	// Documents keeps the onboarding documents (the "documents"
	// requirement of gates, the cancel hook dropping pending uploads).
	Documents *documents.Service

	workers *worker.Runner

	listener net.Listener
	baseURL  string
	notices  io.Writer
}

// New opens the store, migrates it and builds the server on a listener
// bound to cfg.Addr (so that port 0 is resolved before the base URL, the
// token issuer, is fixed). Generated bootstrap credentials are printed to
// notices.
func New(ctx context.Context, cfg config.Config, log *slog.Logger, notices io.Writer) (_ *App, err error) {
	a := &App{Config: cfg, Log: log, notices: notices}
	a.listener, err = net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	a.baseURL = cfg.BaseURL
	if a.baseURL == "" {
		a.baseURL = "http://" + a.listener.Addr().String()
	}

	a.Store, err = store.Open(ctx, cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if err = a.Store.Migrate(ctx); err != nil {
		return nil, fmt.Errorf("migrate %s store: %w", a.Store.Name(), err)
	}
	if a.Clock, err = startClock(ctx, cfg, a.Store); err != nil {
		return nil, err
	}
	a.Security = clock.Real{}
	if len(cfg.KeyEncryptionKeys) == 0 && !cfg.Demo {
		log.Warn("the token signing keys are stored unencrypted in the database: set ATCP_KEY_ENCRYPTION_KEY (docs/operations.md)")
	}
	if a.Tokens, err = auth.NewTokens(ctx, a.Store, a.baseURL, a.Security,
		auth.WithKeyEncryption(cfg.KeyEncryptionKeys), auth.WithKeyLog(log)); err != nil {
		return nil, err
	}

	a.Credentials = identity.NewCredentialCheck(a.Store.Credentials())
	// Magic-link sessions' tokens are checked against their session on
	// every request; the endpoints (magichttp) are registered with the
	// onboarding contacts, its magic.LinkTargets (onboardingPeople).
	a.Credentials.SetTaskSessions(magic.NewSessionCheck(a.Store.OnboardingMagic(), a.Security))
	a.Server = httpapi.New(httpapi.Options{Version: Version, BaseURL: a.baseURL, Tokens: a.Tokens, Credentials: a.Credentials,
		Logger: log, RateLimit: cfg.RateLimit})
	a.Server.AddReadiness("store", a.Store.Ping)
	if a.Objects, err = a.openObjects(); err != nil {
		return nil, err
	}

	// One Hasher for every argon2id call of the process bounds the memory
	// that password and secret checks can take, whoever asks.
	hasher := auth.NewCoreHasher()
	a.Directory = identity.NewDirectory(a.Store.Directory(), a.Clock, a.baseURL)
	a.Directory.SetSecurityClock(a.Security)
	a.Directory.SetHasher(hasher)
	a.Clients = identity.NewClients(a.Store.Clients(), a.Clock)
	a.Clients.SetHasher(hasher)
	oauth := identity.NewOAuth(a.Store.Clients(), a.Store.Directory(), a.Tokens, hasher, a.Security)
	a.Assets = assets.NewService(a.Store.Assets(), a.Clock)
	a.Segmentation = segmentation.NewService(a.Store.Segmentations(), a.Assets, a.Store.Bids(), a.Clock)
	a.Assets.SetVirtualResolver(a.Segmentation)
	a.Assets.AddDeletionGuard(a.Segmentation)
	a.Assets.AddDeletionGuard(bids.DeletionGuard{Store: a.Store.Bids()})
	// The demonstration environment trades assets whatever their
	// operational status; elsewhere only live assets bid (asset_not_live).
	var marketOpts []bids.Option
	if cfg.Demo {
		marketOpts = append(marketOpts, bids.AllowNotLive())
	}
	a.FCR = fcr.NewService(a.Assets, a.Store.Bids(), a.Clock, fcr.Config{}, marketOpts...)
	a.Capacity = afrr.NewCapacityService(a.Assets, a.Store.Bids(), a.Clock, marketOpts...)
	a.Energy = afrr.NewEnergyService(a.Assets, a.Store.Bids(), a.Clock, marketOpts...)
	a.Backup = afrr.NewBackupService(a.Store.BackupMarket(), a.Assets, a.Clock, marketOpts...)
	a.Restrictions = restrictions.NewService(a.Store.Restrictions(), a.Assets, a.Clock)
	a.Contacts = contacts.NewService(a.Store.Contacts(), a.Assets, a.Clock)
	a.Onboarding = onboarding.NewService(a.Store.Onboardings(), a.Assets, a.Clock)
	// While a workflow is in progress it alone moves its asset's status.
	a.Assets.SetStatusOwner(a.Onboarding)
	a.Documents = documents.NewService(a.Store.OnboardingDocuments(), a.Onboarding, a.Objects, a.Clock, a.Security,
		documents.WithDeletedRetention(cfg.ObjectRetention))
	a.Portfolio = portfolio.NewService(a.Store.CoverSteps(), a.Assets, a.Clock)
	a.AFRRReports = afrrreport.NewService(a.Store.AFRRDispatchEvents(), a.Assets, a.Store.Bids(), a.Clock)

	// The simulated market stands in for the TSOs' platform: it forwards,
	// clears and settles with the replayed days' published results.
	data, err := replay.Load()
	if err != nil {
		return nil, fmt.Errorf("load the market replay data: %w", err)
	}
	a.Market = simulation.New(a.Store.Bids(), data)
	a.Dispatch = dispatch.NewService(a.Store.Dispatch(), a.Assets, a.Clock,
		dispatch.Config{MinImmediateWindow: cfg.ImmediateDispatchMinWindow, Commitments: bids.CommitmentReader{Store: a.Store.Bids()}})
	staleAfter := time.Duration(stateStaleRealSeconds * cfg.ClockSpeed * float64(time.Second))
	a.State = assetstate.NewService(assetstate.Deps{
		Clock: a.Clock, Assets: a.Assets, Segmentations: a.Segmentation, Restrictions: a.Restrictions,
		Bids: a.Store.Bids(), Schedules: a.Dispatch, Latest: a.Store.Telemetry(),
		History:    telemetry.NewHistoryReader(a.Store.Telemetry()),
		StaleAfter: staleAfter,
	})
	a.Alarms = alarms.NewService(a.Store.Alarms(), a.Assets, a.Clock)
	a.Pools = pools.NewService(pools.Deps{
		Store: a.Store.Pools(), Assets: a.Assets, Organizations: a.Store.Directory(), Latest: a.Store.Telemetry(),
		Reservations: a.Store.Bids(), Restrictions: a.Store.Restrictions(), Clock: a.Clock, StaleAfter: staleAfter,
	})
	a.logImmediateEvents()
	jobs := append(a.Market.Jobs(), a.retentionJobs()...)
	delivery, err := a.eventDelivery()
	if err != nil {
		return nil, err
	}
	jobs = append(jobs, delivery)
	jobs = append(jobs, a.settlementJobs()...)
	jobs = append(jobs, a.nominationJobs()...)
	coverJobs, err := a.portfolioJobs(staleAfter)
	if err != nil {
		return nil, err
	}
	jobs = append(jobs, coverJobs...)
	jobs = append(jobs, a.documentJobs()...)
	a.Branding = branding.NewService(branding.Deps{Store: a.Store.OnboardingBranding(), Organizations: a.Store.Directory(),
		Objects: a.Objects, Clock: a.Clock})
	people := a.onboardingPeople()
	a.Reminders = reminders.NewService(reminders.Deps{Core: a.Onboarding, Store: a.Store.OnboardingReminders(), Clock: a.Clock, Security: a.Security,
		Logger: log, Recipients: reminderRecipients{people.contacts}, Sender: reminderSender{people.mailer}})
	jobs = append(jobs, a.Reminders.Jobs()...)
	a.faultHandling(cfg)
	if cfg.Simulate {
		if a.Control, err = a.controlLoop(data); err != nil {
			return nil, err
		}
		for _, j := range a.Control.Jobs() {
			// A one-second job keeps its lease for some real seconds, also
			// on a fast demo clock.
			j.LeaseTTL = max(2*j.Every, time.Duration(controlLeaseRealSeconds*cfg.ClockSpeed*float64(time.Second)))
			jobs = append(jobs, j)
		}
		// The alarm rules judge what the control loop records.
		alarmJobs, err := a.alarmJobs(staleAfter)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, alarmJobs...)
	}
	a.workers, err = worker.NewRunner(worker.Options{
		Clock: a.Clock, Leases: a.Store.Leases(), Logger: log, Registerer: a.Server.Registry(),
	}, jobs...)
	if err != nil {
		return nil, err
	}
	a.Server.AddReadiness("workers", func(context.Context) error {
		if !a.workers.Running() {
			return errors.New("background workers are not running")
		}
		return nil
	})

	identityhttp.RegisterOAuth(a.Server, oauth)
	identityhttp.RegisterDirectory(a.Server, a.Directory)
	identityhttp.RegisterClients(a.Server, a.Clients)
	assetshttp.Register(a.Server, a.Assets)
	segmentationhttp.Register(a.Server, a.Segmentation)
	restrictionshttp.Register(a.Server, a.Restrictions)
	contactshttp.Register(a.Server, a.Contacts)
	afrrhttp.RegisterBackup(a.Server, a.Backup)
	fcrhttp.Register(a.Server, a.FCR)
	afrrhttp.RegisterCapacity(a.Server, a.Capacity)
	afrrhttp.RegisterEnergy(a.Server, a.Energy)
	dispatchhttp.Register(a.Server, a.Dispatch)
	telemetryhttp.Register(a.Server, a.State)
	simulatedhttp.Register(a.Server, simulated.NewFaultService(a.Store.SimulatorFaults(), a.Assets, a.Clock, cfg.Simulate))
	alarmshttp.Register(a.Server, a.Alarms)
	faulthttp.Register(a.Server, a.Faults)
	portfoliohttp.Register(a.Server, a.Portfolio, a.Pools)
	afrrreporthttp.Register(a.Server, a.AFRRReports)
	poolshttp.Register(a.Server, a.Pools)
	a.DPL = dplsvc.New(dplsvc.Deps{Onboarding: a.Onboarding, Store: a.Store.OnboardingDPL(), Assets: a.Assets,
		Latest: a.Store.Telemetry(), Adapters: a.steeredAdapters(), Clock: a.Clock, Security: a.Security})
	dplhttp.Register(a.Server, a.Onboarding, a.DPL)
	commentshttp.Register(a.Server, a.Onboarding, comments.NewService(a.Onboarding, a.Store.OnboardingComments(), a.Clock,
		commentNotifier{people.mailer}))
	prequalhttp.Register(a.Server, prequal.NewService(a.Onboarding, a.Store.OnboardingPrequalifications(), a.Assets, certificates{a.Documents}, a.Clock))
	remindershttp.Register(a.Server, a.Reminders)
	rfiValues := fields.NewService(a.Onboarding, a.Store.OnboardingFields(), a.Assets, a.Clock)
	onboardinghttp.Register(a.Server, a.Onboarding, a.Assets, a.Clock, onboardinghttp.WithFields(rfiValues))
	fieldshttp.Register(a.Server, a.Onboarding, rfiValues)
	settlementhttp.Register(a.Server, settlement.NewService(settlement.Deps{Store: a.Store.Settlements(), Assets: a.Assets,
		Organizations: a.Store.Directory(), Clock: a.Clock, Rule: settlement.NewRule(cfg.SettlementFinalLag)}))
	a.registerNominations()
	fcrreporthttp.Register(a.Server, fcrreport.NewService(fcrreport.Deps{Assets: a.Assets, Bids: a.Store.Bids(),
		Covers: a.Store.CoverSteps(), Restrictions: a.Store.Restrictions(), Telemetry: a.Store.Telemetry(), Clock: a.Clock}))
	// GET /v1/alarms/stream: one poller per instance (docs/alarms-stream.md), run by Run.
	a.AlarmStream = alarmstream.NewHub(alarmstream.Options{Store: a.Store.Alarms(), Logger: log, Credentials: a.Credentials})
	alarmstream.Register(a.Server, a.AlarmStream)
	brandinghttp.Register(a.Server, a.Branding)
	taskService := tasks.NewService(tasks.Deps{Onboarding: a.Onboarding, Assets: a.Assets, Fields: rfiValues, Branding: a.Branding,
		Documents: a.Documents.TaskLister(), Contacts: people.contacts, Users: userTasks{people.contacts},
		Tests: latestTests{a.DPL}})
	taskshttp.Register(a.Server, a.Onboarding, taskService)
	documentshttp.Register(a.Server, a.Documents, a.Onboarding, taskService)

	if err = a.bootstrap(ctx); err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	return a, nil
}

// BaseURL is the public base URL, also the token issuer.
func (a *App) BaseURL() string { return a.baseURL }

// Run serves until ctx is cancelled, then shuts down gracefully: it stops
// accepting, lets requests in flight finish within the shutdown timeout and
// closes the store.
func (a *App) Run(ctx context.Context) error {
	srv := &http.Server{
		Handler:           a.Server,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn),
	}
	// Background work runs until the server has stopped serving, on
	// database connections of its own (workload).
	workCtx, stopWork := context.WithCancel(workload.Background(context.Background()))
	var workers sync.WaitGroup
	workers.Go(func() { a.Assets.Watch(workCtx) })
	workers.Go(func() { a.incidents.Run(workCtx) })
	workers.Go(func() { a.Credentials.Watch(workCtx) })
	workers.Go(func() { a.Tokens.WatchKeys(workCtx) })
	workers.Go(func() { a.AlarmStream.Run(workCtx) }) // closes its streams with 1001, then returns
	if a.afrrEvents != nil {
		workers.Go(func() { a.afrrEvents.Run(workCtx) }) // writes what is left, then returns
	}
	workers.Go(func() {
		if err := a.workers.Run(workCtx); err != nil {
			a.Log.Error("background workers stopped", "error", err)
		}
	})
	defer func() {
		stopWork()
		workers.Wait()
	}()

	served := make(chan error, 1)
	go func() { served <- srv.Serve(a.listener) }()
	a.Log.Info("serving", "addr", a.listener.Addr().String(), "base_url", a.baseURL, "store", a.Store.Name(),
		"clock", a.Clock.Now().Format(time.RFC3339), "version", Version)

	select {
	case err := <-served:
		stopWork()
		workers.Wait()
		a.Close()
		return err
	case <-ctx.Done():
	}
	a.Log.Info("shutting down", "timeout", a.Config.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.Background(), a.Config.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		a.Log.Warn("requests still in flight at the shutdown deadline were cut off")
		err = srv.Close()
	}
	if srvErr := <-served; srvErr != nil && !errors.Is(srvErr, http.ErrServerClosed) && err == nil {
		err = srvErr
	}
	stopWork()
	workers.Wait()
	if cerr := a.closeAdapters(shutdownCtx); cerr != nil && err == nil {
		err = cerr
	}
	if cerr := a.Store.Close(); cerr != nil && err == nil {
		err = cerr
	}
	if a.closeObjects != nil {
		a.closeObjects()
	}
	a.Log.Info("stopped")
	return err
}

// Close releases the listener and the store without serving; Run closes
// them itself.
func (a *App) Close() {
	a.closeAdapters(context.Background())
	if a.listener != nil {
		a.listener.Close()
	}
	if a.Store != nil {
		a.Store.Close()
	}
	if a.closeObjects != nil {
		a.closeObjects()
	}
}

// Addr is the address the server listens on.
func (a *App) Addr() string { return a.listener.Addr().String() }

// certificates lets a prequalification result cite a certificate uploaded
// to the onboarding's documents.
type certificates struct{ docs *documents.Service }

func (c certificates) Exists(ctx context.Context, organizationID, onboardingID, documentID string) (bool, error) {
	return c.docs.CertificateExists(ctx, organizationID, onboardingID, documentID)
}
