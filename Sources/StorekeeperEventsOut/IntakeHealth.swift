import Foundation
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore

/// Watches an app's notification intake for what a person must fix: more than half of the last
/// hour's notifications rejected (at least 20: forged traffic, or a misconfigured root or
/// bundle), or no notification for two days while the app's ledger has recent subscriptions
/// (the notification URL is probably not set at Apple, or unreachable). Each is a problem
/// opened once and resolved when the cause clears.
package struct IntakeHealth {
    package let store: any StorekeeperStorage
    package let app: AppRuntime
    package let counters: IntakeCounters
    package let now: Date

    package init(store: any StorekeeperStorage, app: AppRuntime, counters: IntakeCounters, now: Date) {
        self.store = store
        self.app = app
        self.counters = counters
        self.now = now
    }

    package static let rejectedSpike = "rejected_spike"
    package static let silence = "no_notifications"
    package static let silenceLimit: TimeInterval = 48 * 3600

    package func check() async throws {
        let desk = ProblemDesk(store: store)
        var filter = NotificationFilter(limit: 1000)
        filter.receivedFrom = now.addingTimeInterval(-3600)
        let recent = try await store.notifications(appId: app.id, filter: filter)
        let rejected = recent.filter { $0.state == .rejected }
        // Bodies refused at the door were never stored: the counters of this process say how many.
        let door = counters.lastHour(appId: app.id, now: now)
        let refused = rejected.count + door.refused
        let total = max(recent.count, door.admitted) + door.refused
        if total >= 20, refused * 2 > total {
            let reasons = Dictionary(grouping: rejected.compactMap(\.failureReason), by: { String($0.prefix(40)) }).mapValues(\.count)
            let top = reasons.max { $0.value < $1.value }
            try await desk.open(
                Problem(
                    appId: app.id, kind: Self.rejectedSpike, causeKey: Self.rejectedSpike,
                    summary: "\(refused) of the last hour's \(total) notifications were refused or rejected",
                    evidence: [
                        "refusedAtTheDoor": "\(door.refused)", "rejectedInProcessing": "\(rejected.count)", "received": "\(total)",
                        "topReason": top.map { "\($0.key) (\($0.value))" } ?? "",
                    ],
                    openedAt: now), app: app)
        } else {
            try await desk.resolve(causeKey: Self.rejectedSpike, app: app, by: "automatic", at: now)
        }
        let latest = try await store.lastReceivedAt(appId: app.id)
        let live = try await store.hasChains(appId: app.id, recordedSince: now.addingTimeInterval(-35 * 86_400))
        if let latest, live, latest < now.addingTimeInterval(-Self.silenceLimit) {
            try await desk.open(
                Problem(
                    appId: app.id, kind: Self.silence, causeKey: Self.silence,
                    summary: "no notification from Apple since \(Timestamp.string(from: latest)) while subscriptions are live",
                    evidence: ["lastReceived": Timestamp.string(from: latest)], openedAt: now), app: app)
        } else if latest.map({ $0 >= now.addingTimeInterval(-Self.silenceLimit) }) ?? false {
            try await desk.resolve(causeKey: Self.silence, app: app, by: "automatic", at: now)
        }
    }
}
