import AppStoreSimulator
import Foundation

/// What the demo prints: where things run, progress through simulated time, the delivery and
/// reconciliation figures, and the comparison.
struct DemoReporter {
    let settings: DemoSettings
    let world: DemoWorld
    let counter: APICallCounter

    func say(_ line: String) {
        Console.out(Data((line + "\n").utf8))
    }

    func starting(serverBase: String) {
        say(
            "Storekeeper demo: \(settings.customers) customers over \(Self.number(settings.days)) simulated days, "
                + "\(Self.percent(settings.dropRate)) of notifications lost, \(Self.percent(settings.duplicateRate)) duplicated, seed \(settings.seed)"
        )
        say("  server      \(serverBase) (SQLite in \(world.directory.appendingPathComponent("data").path))")
        say("  dashboard   \(serverBase)/dashboard  (sign in as \(DemoWorld.dashboardEmail) with password \(world.dashboardPassword))")
        say("  simulated   \(Self.day(world.start)) → \(Self.day(world.end))")
        say("  Apple       the simulator's root certificates: \(world.rootPath.path) (JWS), \(world.receiptRootPath.path) (receipts)")
        #if DEBUG
        if settings.customers * Int(settings.days) > 50_000 {
            say("  (a debug build: `swift run -c release storekeeper demo …` runs this about half again as fast)")
        }
        #endif
    }

    func progress(at instant: Date, population: PopulationSimulator, delivery: DeliveryReport, purchases: Int, processed: Int) {
        guard !settings.quiet else { return }
        let day = Int((instant.timeIntervalSince(world.start) / 86_400).rounded())
        let subscriptions = world.store.subscriptions()
        let active = subscriptions.filter { $0.status(at: instant) == .active }.count
        say(
            "  day \(String(day).leftPadded(4))  \(Self.day(instant))  subscriptions \(subscriptions.count) (\(active) active)"
                + "  notifications \(delivery.notifications) sent, \(delivery.dropped) lost, \(delivery.duplicatesSent) duplicated"
                + "  purchases \(purchases)  server processed \(processed)  Apple API calls \(counter.total)")
    }

    func simulated(elapsed: Duration, delivery: DeliveryReport, purchases: Int, processed: Int) {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        say(
            "Simulated \(Self.number(settings.days)) days in \(String(format: "%.1f", seconds)) s: "
                + "\(delivery.notifications) notifications (\(delivery.attempts) attempts, \(delivery.dropped) lost for good, "
                + "\(delivery.duplicatesSent) duplicates), \(purchases) purchases delivered by the devices' StorekeeperKit, \(processed) inbox entries processed"
        )
        let snapshot = counter.snapshot
        let calls = snapshot.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let subscriptions = max(1, world.store.subscriptions().count)
        // The notification-history sweep costs the same per app whatever the population; the
        // other calls grow with it.
        let sweep = snapshot.filter { $0.key.contains("notifications/history") }.values.reduce(0, +)
        let perSubscription = Double(counter.total - sweep) / Double(subscriptions) / max(1, settings.days)
        say(
            "Reconciliation made \(counter.total) Apple API calls (\(calls.isEmpty ? "none" : calls)): "
                + String(format: "%.3f", perSubscription) + " per subscription per day against 1.000 for daily polling, plus "
                + String(format: "%.1f", Double(sweep) / max(1, settings.days)) + " notification-history calls per day for the app")
    }

    func comparison(_ result: DemoComparison.Result) {
        let statuses = result.byStatus.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        say("Truth at the end: \(statuses)")
        for line in result.mismatches.prefix(20) { say("  mismatch \(line)") }
        if result.mismatches.count > 20 { say("  … and \(result.mismatches.count - 20) more") }
        say("matched \(result.matched)/\(result.total) subscriptions")
    }

    func analytics(_ result: DemoAnalyticsComparison.Result) {
        for line in result.mismatches.prefix(20) { say("  mismatch \(line)") }
        if result.mismatches.count > 20 { say("  … and \(result.mismatches.count - 20) more") }
        say("analytics matched \(result.matched)/\(result.total) figures")
    }

    func events(_ result: DemoEventComparison.Result, receiver: DemoReceiver) {
        for line in result.mismatches.prefix(200) { say("  mismatch \(line)") }
        if result.mismatches.count > 200 { say("  … and \(result.mismatches.count - 200) more") }
        say(
            "events matched \(result.matched)/\(result.total) (subscription × type against the simulator's notifications; "
                + "\(receiver.events.count) events received once each in \(receiver.posts) signed posts)")
        for line in result.revenueCatMismatches.prefix(50) { say("  revenuecat mismatch \(line)") }
        if result.revenueCatMismatches.count > 50 { say("  … and \(result.revenueCatMismatches.count - 50) more") }
        let counts = result.revenueCatCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        say(
            "revenuecat-format webhooks matched \(max(0, result.revenueCatChecked - result.revenueCatMismatches.count))/\(result.revenueCatChecked) events "
                + "(documented fields and types; \(receiver.revenueCatEvents.count) received once each in \(receiver.revenueCatPosts) posts: "
                + (counts.isEmpty ? "none" : counts) + ")")
    }

    func live(serverBase: String) {
        say("")
        let pace = settings.liveSpeed == 1 ? "in real time" : "at \(Self.number(settings.liveSpeed))× real time"
        say("The server keeps running \(pace) (Ctrl-C stops it); the simulated customers keep living.")
        say("  dashboard    \(serverBase)/dashboard   (sign in as \(DemoWorld.dashboardEmail) with password \(world.dashboardPassword))")
        say("  API          \(serverBase)   (admin key: \(world.adminKey))")
        say(
            "  RevenueCat   SDK proxyURL \(serverBase)/revenuecat (SDK key \(world.revenueCatSDKKey)); "
                + "REST v2 \(serverBase)/revenuecat/v2/projects/\(DemoWorld.appId) (secret key \(world.revenueCatSecretKey))")
        say("  health       curl \(serverBase)/health")
        say("  metrics      curl \(serverBase)/metrics")
        say("  API docs     curl \(serverBase)/openapi.json")
        say("  notifications  curl -H 'Authorization: Bearer \(world.adminKey)' '\(serverBase)/v1/apps/\(DemoWorld.appId)/notifications?limit=5'")
        if let sample = world.store.subscriptions().first {
            say(
                "  a subscription  curl -H 'Authorization: Bearer \(world.adminKey)' \(serverBase)/v1/apps/\(DemoWorld.appId)/subscriptions/\(sample.originalTransactionId)"
            )
            say(
                "  its customer    curl -H 'Authorization: Bearer \(world.adminKey)' \(serverBase)/v1/apps/\(DemoWorld.appId)/customers/\(sample.customerId)"
            )
        }
    }

    static func day(_ date: Date) -> String { String(ISO8601DateFormatter().string(from: date).prefix(10)) }
    static func percent(_ value: Double) -> String { "\(Self.number(value * 100))%" }
    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
