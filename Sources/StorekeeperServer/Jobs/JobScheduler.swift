import AppStoreModels
import AppStoreServerAPI
import Foundation
import Logging
import ServiceLifecycle
import StorekeeperStore

/// The reconciliation scheduler: a service that plans the periodic sweeps, leases due jobs
/// from the store (PostgreSQL `FOR UPDATE SKIP LOCKED`, so several replicas never run one job
/// at once; SQLite has a single writer), runs them and records each outcome: done, retried
/// with backoff, or failed for good. Jobs live in the database, so they survive restarts.
public struct JobScheduler: Service {
    let runner: JobRunner
    /// This process's lease owner name.
    public let owner: String

    public init(runner: JobRunner, owner: String = "scheduler-\(UUID().uuidString.prefix(8))") {
        self.runner = runner
        self.owner = owner
    }

    var configuration: SchedulerConfiguration { runner.configuration }

    public func run() async throws {
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
            let sweepEnd = Self.periodStart(now, configuration.notificationSweepSeconds)
            let previous = try await runner.store.latestJob(appId: appId, kind: JobKind.notificationSweep.rawValue, state: .done)
            let previousEnd = previous.flatMap { try? JSONDecoder().decode(SweepPayload.self, from: Data($0.payload.utf8)) }?.endMillis
            let start =
                (previousEnd ?? (sweepEnd - Int64(configuration.notificationSweepSeconds * 1000)))
                - Int64(configuration.sweepOverlapSeconds * 1000)
            try await enqueue(
                appId: appId, kind: .notificationSweep, at: sweepEnd,
                payload: JSONEncoder.payload(SweepPayload(startMillis: min(start, sweepEnd), endMillis: sweepEnd)))
            try await enqueue(appId: appId, kind: .refundSweep, at: Self.periodStart(now, configuration.refundSweepSeconds))
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

    private func enqueue(appId: String, kind: JobKind, at millis: Int64, payload: String = "{}") async throws {
        try await runner.store.enqueue(.periodic(appId: appId, kind: kind, start: Date(millisecondsSince1970: millis), payload: payload))
    }

    /// The start of the period of `seconds` that contains `date`, in milliseconds.
    static func periodStart(_ date: Date, _ seconds: Double) -> Int64 {
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

    /// A job that failed for good: `job_failing` for its kind, until one of that kind succeeds.
    private func openJobProblem(_ job: JobRecord, error: String, app: AppRuntime?, desk: ProblemDesk) async throws {
        guard let app else { return }
        try await desk.open(
            Problem(
                appId: app.id, kind: ProblemDesk.jobFailing, causeKey: "\(ProblemDesk.jobFailing):\(job.kind)",
                summary: "\(job.kind) jobs fail and are not retried any more", evidence: ["job": "\(job.id ?? 0)", "error": error],
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
                if JobKind(rawValue: job.kind) != .transitions {
                    try await desk.resolve(causeKey: ProblemDesk.appleUnauthorized, app: app, by: "automatic", at: now)
                }
            }
        } catch let failure as JobRunner.PermanentFailure {
            runner.logger.warning("job failed for good", metadata: ["job": "\(id)", "kind": "\(job.kind)", "error": "\(failure)"])
            try await runner.store.failJob(id: id, owner: owner, error: failure.description, retryAt: nil)
            try await openJobProblem(job, error: failure.description, app: app, desk: desk)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let message = String(String(describing: error).prefix(500))
            let retryAt =
                job.attempts >= configuration.maximumAttempts
                ? nil : runner.clock().addingTimeInterval(min(21_600, 30 * pow(2, Double(max(0, job.attempts - 1)))))
            runner.logger.notice("job failed", metadata: ["job": "\(id)", "kind": "\(job.kind)", "error": "\(message)"])
            try await runner.store.failJob(id: id, owner: owner, error: message, retryAt: retryAt)
            if let app, let apple = error as? AppStoreServerAPIError, apple.httpStatus == 401 {
                try await desk.open(
                    Problem(
                        appId: app.id, kind: ProblemDesk.appleUnauthorized, causeKey: ProblemDesk.appleUnauthorized,
                        summary: "Apple refuses the app's App Store Server API key (401): check issuerId, keyId and the private key",
                        evidence: ["job": job.kind, "error": message], openedAt: runner.clock()), app: app)
            }
            if retryAt == nil { try await openJobProblem(job, error: message, app: app, desk: desk) }
        }
    }
}
