import AppStoreModels
import Foundation
import Synchronization

/// Delivers a simulated App Store's notifications to the app's server the way Apple does.
///
/// The lifecycle hands each notification it records to ``enqueue(_:)``; whoever drives the
/// simulation clock calls ``deliverDue(now:)`` as time moves. Each call posts every attempt
/// due by then, records it in the store's notification history (dated at its scheduled
/// instant, as Apple's history shows it) and schedules retries on Apple's schedule
/// (``NotificationRetrySchedule``): V2 retried 1, 12, 24, 48 and 72 h after the previous
/// attempt, V1 6, 24 and 48 h, a single attempt in the sandbox. A 200–206 answer is success;
/// anything else, or no answer, is failure. ``DeliveryConfiguration`` adds losses,
/// duplicates, delays and reordering, decided per notification from a seed.
///
/// Only V2 attempts enter the history (the App Store Server API serves V2 history only).
public final class NotificationDelivery: Sendable {
    /// The store whose notifications are delivered and whose history records the attempts.
    public let store: SimulatedAppStore
    /// Where notifications go and how unreliable the way is.
    public let configuration: DeliveryConfiguration
    private let transport: any NotificationTransport
    private let state: Mutex<State>

    private struct State {
        var outbox: DeliveryOutbox
        var totals = DeliveryReport()
    }

    /// Delivery of `store`'s notifications through `transport`.
    public init(store: SimulatedAppStore, configuration: DeliveryConfiguration, transport: some NotificationTransport) {
        self.store = store
        self.configuration = configuration
        self.transport = transport
        state = Mutex(State(outbox: DeliveryOutbox(configuration: configuration, environment: store.environment)))
    }

    /// Queues a notification's first attempt on every channel configured for it (V2, and V1
    /// when a V1 URL is set and the record has a V1 body), due at its `firstSendDate` plus a
    /// random delay up to ``DeliveryConfiguration/maximumDelay``. Adds the record to the
    /// store's history if it is not there yet. Enqueuing the same UUID again does nothing.
    ///
    /// - Returns: the channels it will be sent on.
    @discardableResult
    public func enqueue(_ record: NotificationRecord) -> [DeliveryChannel] {
        if store.notification(record.notificationUUID) == nil {
            store.recordNotification(record)
        }
        return state.withLock { $0.outbox.enqueue(record) }
    }

    /// How many posts (attempts and duplicates) are waiting.
    public var pendingCount: Int { state.withLock { $0.outbox.pending.count } }

    /// When the next post is due, nil when nothing waits.
    public var nextDueDate: Date? { state.withLock { $0.outbox.nextDueDate } }

    /// Everything delivery has done so far.
    public var totals: DeliveryReport { state.withLock { $0.totals } }

    /// Sends every post due at `now` (simulation time), at most
    /// ``DeliveryConfiguration/concurrency`` at once, records each attempt in the store's
    /// history and schedules what follows. Retries and duplicates that fall due by `now`
    /// are sent in the same call, so a coarse clock step still gives Apple's history.
    ///
    /// - Returns: what this call did.
    @discardableResult
    public func deliverDue(now: Date) async -> DeliveryReport {
        var report = DeliveryReport()
        while true {
            let batch = state.withLock { $0.outbox.takeDue(now: now) }
            if batch.isEmpty { break }
            report.add(await send(batch))
        }
        return report
    }

    /// Sends a batch with bounded concurrency and applies each outcome as it arrives.
    private func send(_ batch: [DeliveryOutbox.Post]) async -> DeliveryReport {
        let limit = max(1, configuration.concurrency)
        return await withTaskGroup(of: (DeliveryOutbox.Post, DeliveryOutbox.Outcome).self) { group in
            var report = DeliveryReport()
            var remaining = batch.makeIterator()
            var inFlight = 0
            while inFlight < limit, let post = remaining.next() {
                group.addTask { await self.perform(post) }
                inFlight += 1
            }
            while let (post, outcome) = await group.next() {
                report.add(complete(post, outcome: outcome))
                if let next = remaining.next() {
                    group.addTask { await self.perform(next) }
                }
            }
            return report
        }
    }

    /// Makes one post, unless the dice say it is lost.
    private func perform(_ post: DeliveryOutbox.Post) async -> (DeliveryOutbox.Post, DeliveryOutbox.Outcome) {
        if state.withLock({ $0.outbox.isLost(post) }) { return (post, .lost) }
        let headers = ["Content-Type": "application/json"]
        return (post, .sent(await transport.post(post.body, to: post.url, headers: headers)))
    }

    /// Feeds an outcome to the outbox, records the history entry and adds to the totals, all
    /// under the lock so a notification's history entries keep their order.
    private func complete(_ post: DeliveryOutbox.Post, outcome: DeliveryOutbox.Outcome) -> DeliveryReport {
        state.withLock { state in
            let completion = state.outbox.complete(post, outcome: outcome)
            state.totals.add(completion.report)
            if let entry = completion.historyEntry, let date = entry.attemptDate, let result = entry.sendAttemptResult {
                store.recordSendAttempt(notificationUUID: post.notificationUUID, at: date, result: result)
            }
            return completion.report
        }
    }
}
