import Foundation
import Logging
import ServiceLifecycle
import StorekeeperApps
import StorekeeperStore

/// The long-running service that processes the inbox: at start it takes up whatever an
/// earlier process left pending, then it processes new notifications as the endpoint wakes
/// it (or every poll interval), until graceful shutdown.
public struct InboxWorker: Service {
    package let processor: InboxProcessor
    package let configuration: InboxConfiguration
    package let signal: InboxSignal
    /// Whether this process is the store's only user (SQLite): then leases left by a killed
    /// process are freed at once instead of waiting for them to run out.
    package let releaseLeasesAtStart: Bool

    package init(processor: InboxProcessor, configuration: InboxConfiguration, signal: InboxSignal, releaseLeasesAtStart: Bool) {
        self.processor = processor
        self.configuration = configuration
        self.signal = signal
        self.releaseLeasesAtStart = releaseLeasesAtStart
    }

    public func run() async throws {
        if releaseLeasesAtStart { try? await processor.store.releaseLeases() }
        await cancelWhenGracefulShutdown {
            var failures = FailureLog()
            while !Task.isCancelled {
                do {
                    try await processor.drain(
                        batchSize: configuration.batchSize, leaseSeconds: configuration.leaseSeconds,
                        maximumAttempts: configuration.maximumAttempts, gather: .milliseconds(configuration.gatherMilliseconds), pacing: signal)
                    processor.metrics?.inboxPending((try? await processor.store.pendingCount()) ?? 0)
                    FailureLog.write(failures.succeeded(), name: "inbox processing", error: nil, to: processor.logger)
                } catch {
                    FailureLog.write(failures.failed(at: Date()), name: "inbox processing", error: error, to: processor.logger)
                }
                await signal.wait(upTo: .milliseconds(Int64(configuration.pollIntervalSeconds * 1000)))
            }
        }
    }
}

/// Wakes the inbox worker when a notification arrives, and paces its claims by the arrivals
/// (``ArrivalPace``).
public actor InboxSignal {
    private var waiter: CheckedContinuation<Void, Never>?
    private var pending = false
    private var pace: ArrivalPace

    /// `quiet` and `limit` as in ``ArrivalPace``; a zero `quiet` never holds processing.
    public init(quiet: Duration = .zero, limit: Duration = .seconds(1)) {
        pace = ArrivalPace(quiet: quiet, limit: limit)
    }

    /// How many notifications arrived.
    private(set) var arrivals = 0

    /// A notification arrived: wakes the worker (or makes its next wait return at once).
    public func notify() {
        arrivals += 1
        pace.arrived(at: .now)
        wake()
    }

    private func wake() {
        if let waiter {
            self.waiter = nil
            waiter.resume()
        } else {
            pending = true
        }
    }

    /// Waits for a notification or the timeout, whichever comes first.
    package func wait(upTo timeout: Duration) async {
        if pending {
            pending = false
            return
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.wake()
        }
        await withCheckedContinuation { waiter = $0 }
        pending = false
        timer.cancel()
    }
}

extension InboxSignal: InboxProcessor.Pacing {
    public func beforeClaim() async {
        while let until = pace.holdsUntil(.now), !Task.isCancelled {
            try? await Task.sleep(until: until, clock: .continuous)
        }
    }

    public func claimFoundNothing(startedAt start: ContinuousClock.Instant) {
        pace.emptied(claimStartedAt: start)
    }
}
