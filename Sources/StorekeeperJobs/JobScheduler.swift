import AppStoreModels
import AppStoreServerAPI
import Foundation
import Logging
import ServiceLifecycle
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperInbox
import StorekeeperStore

/// The reconciliation scheduler: a service that plans the periodic sweeps, leases due jobs
/// from the store (PostgreSQL `FOR UPDATE SKIP LOCKED`, so several replicas never run one job
/// at once; SQLite has a single writer), runs them and records each outcome: done, retried
/// with backoff, or failed for good. Jobs live in the database, so they survive restarts.
public struct JobScheduler: Service {
    package var runner: JobRunner
    /// This process's lease owner name.
    public let owner: String

    public init(runner: JobRunner, owner: String = "scheduler-\(UUID().uuidString.prefix(8))") {
        self.runner = runner
        self.owner = owner
    }

    package var configuration: SchedulerConfiguration { runner.configuration }

    public func run() async throws {
        // Forwarded notifications need an HTTP client; tests and the demo may pass their own.
        var scheduler = self
        let client = runner.transport == nil ? HTTPWebhookTransport.makeClient() : nil
        if let client { scheduler.runner.transport = HTTPWebhookTransport(client: client) }
        await scheduler.loop()
        try? await client?.shutdown()
    }

    private func loop() async {
        await cancelWhenGracefulShutdown {
            var failures = FailureLog()
            while !Task.isCancelled {
                do {
                    try await tick()
                    FailureLog.write(failures.succeeded(), name: "job scheduling", error: nil, to: runner.logger)
                } catch {
                    FailureLog.write(failures.failed(at: Date()), name: "job scheduling", error: error, to: runner.logger)
                }
                try? await Task.sleep(for: .milliseconds(Int64(configuration.pollIntervalSeconds * 1000)))
            }
        }
    }

    /// One pass: plans the periodic jobs, then runs every due job. Returns how many ran.
    @discardableResult
    public func tick() async throws -> Int {
        try await planPeriodic()
        return try await runDue()
    }

    /// Enqueues the periodic jobs of every app that talks to Apple, keyed by their period so
    /// that every replica planning them keeps one; and a consumption answer per new
    /// `CONSUMPTION_REQUEST` in the inbox.
    public func planPeriodic() async throws {
        let now = runner.clock()
        for appId in runner.apps.apps.keys.sorted() {
            try await enqueue(appId: appId, kind: .intakeHealth, at: Self.periodStart(now, configuration.planSeconds))
        }
        for appId in runner.clients.appIds where runner.apps.apps[appId] != nil {
            try await enqueueSweep(appId: appId, kind: .notificationSweep, period: configuration.notificationSweepSeconds, now: now)
            try await enqueueSweep(appId: appId, kind: .refundSweep, period: configuration.refundSweepSeconds, now: now)
            try await enqueue(appId: appId, kind: .planLooks, at: Self.periodStart(now, configuration.planSeconds))
            let requests = try await runner.store.notifications(
                appId: appId,
                filter: NotificationFilter(notificationType: NotificationTypeV2.consumptionRequest.rawValue, state: .processed, limit: 200))
            // Each request is planned once (its job records an answer or that the 12-hour window
            // passed); requests a week old were planned long ago, so they are not offered again.
            let answerable = now.addingTimeInterval(-max(7 * 86_400, 2 * configuration.consumptionWindowSeconds))
            for row in requests where row.receivedAt >= answerable {
                guard let id = row.id else { continue }
                try await runner.store.enqueue(.consumptionAnswer(appId: appId, inboxId: id, runAt: now))
            }
        }
    }

    /// Enqueues the history sweep of `kind` for the period of `period` seconds that ends at
    /// the latest period boundary: its window starts where the previous completed sweep of the
    /// kind ended (less the overlap, for late deliveries), so no instant is left unswept, and no
    /// earlier than Apple's history reaches (180 days).
    private func enqueueSweep(appId: String, kind: JobKind, period: Double, now: Date) async throws {
        let end = Self.periodStart(now, period)
        let previous = try await runner.store.latestJob(appId: appId, kind: kind.rawValue, state: .done)
        let previousEnd = previous.flatMap { try? JSONDecoder().decode(SweepPayload.self, from: Data($0.payload.utf8)) }?.endMillis
        let oldest = now.millisecondsSince1970 - Int64(Self.historyReach * 1000)
        let start = max(oldest, (previousEnd ?? (end - Int64(period * 1000))) - Int64(configuration.sweepOverlapSeconds * 1000))
        try await enqueue(appId: appId, kind: kind, at: end, payload: JSONEncoder.payload(SweepPayload(startMillis: min(start, end), endMillis: end)))
    }

    /// How far back Apple's notification history reaches (180 days), less a day's margin.
    package static let historyReach: TimeInterval = 179 * 86_400

    private func enqueue(appId: String, kind: JobKind, at millis: Int64, payload: String = "{}") async throws {
        try await runner.store.enqueue(.periodic(appId: appId, kind: kind, start: Date(millisecondsSince1970: millis), payload: payload))
    }

    /// The start of the period of `seconds` that contains `date`, in milliseconds.
    package static func periodStart(_ date: Date, _ seconds: Double) -> Int64 {
        let period = max(1, Int64(seconds * 1000))
        let millis = date.millisecondsSince1970
        return millis - ((millis % period) + period) % period
    }

    /// Leases and runs due jobs until none is left; returns how many ran.
    @discardableResult
    public func runDue() async throws -> Int {
        var ran = 0
        while true {
            let now = runner.clock()
            let batch = try await runner.store.leaseJobs(
                limit: configuration.batchSize, owner: owner, now: now, leaseUntil: now.addingTimeInterval(configuration.leaseSeconds))
            if batch.isEmpty { return ran }
            for job in batch {
                try await execute(job)
                ran += 1
            }
        }
    }

    /// A job that failed for good, or keeps failing while Apple is away: `job_failing` for its
    /// kind, until one of that kind succeeds.
    private func openJobProblem(_ job: JobRecord, error: String, app: AppRuntime?, desk: ProblemDesk) async throws {
        guard let app else { return }
        try await desk.open(
            Problem(
                appId: app.id, kind: ProblemDesk.jobFailing, causeKey: "\(ProblemDesk.jobFailing):\(job.kind)",
                summary: "\(job.kind) jobs keep failing", evidence: ["job": "\(job.id ?? 0)", "error": error],
                openedAt: runner.clock()), app: app)
    }

    /// Runs one job leased to ``owner`` and records its outcome (``runDue()`` runs every due
    /// job this way; benchmarks time one).
    public func execute(_ job: JobRecord) async throws {
        guard let id = job.id else { return }
        let app = runner.apps.apps[job.appId]
        let desk = ProblemDesk(store: runner.store)
        do {
            try await runner.run(job)
            try await runner.store.completeJob(id: id, owner: owner)
            if let app {
                let now = runner.clock()
                try await desk.resolve(causeKey: "\(ProblemDesk.jobFailing):\(job.kind)", app: app, by: "automatic", at: now)
                // Only a job that called Apple says Apple takes the key again.
                if ![.transitions, .forwardNotification].contains(JobKind(rawValue: job.kind)) {
                    try await desk.resolve(causeKey: ProblemDesk.appleUnauthorized, app: app, by: "automatic", at: now)
                }
            }
        } catch let failure as JobRunner.PermanentFailure {
            runner.logger.warning("job failed for good", metadata: ["job": "\(id)", "kind": "\(job.kind)", "error": "\(failure)"])
            try await runner.store.failJob(id: id, owner: owner, error: failure.description, retryAt: nil)
            runner.metrics?.jobFailed(kind: job.kind, final: true)
            try await openJobProblem(job, error: failure.description, app: app, desk: desk)
        } catch is CancellationError {
            throw CancellationError()
        } catch let open as AppleBreaker.Open {
            // Not a failure of this job: it waits for Apple with the rest of the app's calls.
            try await runner.store.failJob(id: id, owner: owner, error: open.description, retryAt: open.until)
        } catch {
            let message = String(String(describing: error).prefix(500))
            let attempts =
                JobKind(rawValue: job.kind) == .forwardNotification
                ? NotificationForwarder.attempts(configured: configuration.maximumAttempts) : configuration.maximumAttempts
            let retryAt = Self.retryDate(after: error, attempts: job.attempts, maximumAttempts: attempts, now: runner.clock())
            runner.logger.notice("job failed", metadata: ["job": "\(id)", "kind": "\(job.kind)", "error": "\(message)"])
            try await runner.store.failJob(id: id, owner: owner, error: message, retryAt: retryAt)
            runner.metrics?.jobFailed(kind: job.kind, final: retryAt == nil)
            if let app, let apple = error as? AppStoreServerAPIError, apple.httpStatus == 401 {
                try await desk.open(
                    Problem(
                        appId: app.id, kind: ProblemDesk.appleUnauthorized, causeKey: ProblemDesk.appleUnauthorized,
                        summary: "Apple refuses the app's App Store Server API key (401): check issuerId, keyId and the private key",
                        evidence: ["job": job.kind, "error": message], openedAt: runner.clock()), app: app)
            }
            // Given up, or still retrying after as many attempts as a give-up takes (Apple away
            // that long): either way an operator should know.
            if retryAt == nil || job.attempts == configuration.maximumAttempts {
                // (A forward that is still retrying says so too: the second backend is down.)
                try await openJobProblem(job, error: message, app: app, desk: desk)
            }
        }
    }

    /// When a failed job runs again, or nil to give up: exponential backoff from 30 s, capped at
    /// six hours. Apple being unavailable (5xx, 429, a timeout, a garbled answer) is never a reason
    /// to give up — the job waits out the outage, at least until Apple's `Retry-After` — so no
    /// look or sweep is lost however long Apple is away; other failures give up after
    /// `maximumAttempts`.
    package static func retryDate(after error: any Error, attempts: Int, maximumAttempts: Int, now: Date) -> Date? {
        let backoff = now.addingTimeInterval(min(21_600, 30 * pow(2, Double(max(0, attempts - 1)))))
        if AppleBreaker.meansAppleAway(error) {
            return max(backoff, (error as? AppStoreServerAPIError)?.retryAfter ?? backoff)
        }
        return attempts >= maximumAttempts ? nil : backoff
    }
}
