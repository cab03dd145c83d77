import AppStoreModels
import AppStoreSimulator
import Foundation
import Testing

/// Losses, duplicates, delays, reordering, concurrency and the seed.
@Suite("Notification delivery knobs")
struct DeliveryKnobTests {
    typealias Support = DeliveryTestSupport

    @Test("dropRate 1 never reaches the server, yet the history shows six timed-out attempts")
    func droppedNotificationsNeverArrive() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(200)
        let delivery = Support.delivery(store: store, transport: transport) { $0.dropRate = 1 }
        for index in 1...3 { delivery.enqueue(Support.record(index)) }

        await Support.drain(delivery)

        #expect(transport.posts.isEmpty)
        for index in 1...3 {
            let uuid = Support.record(index).notificationUUID
            #expect(store.notification(uuid)?.sendAttempts.map(\.sendAttemptResult) == Array(repeating: .timedOut, count: 6))
            #expect(Support.attemptHours(store, uuid) == [0, 1, 13, 37, 85, 157])
        }
        #expect(
            delivery.totals
                == DeliveryReport(
                    notifications: 3, attempts: 18, failures: 18, lost: 18, dropped: 3, retriesScheduled: 15, abandoned: 3))
    }

    @Test("attemptLossRate 1 loses every attempt, and Apple's retries are lost too")
    func everyAttemptLost() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(200)
        let delivery = Support.delivery(store: store, transport: transport) { $0.attemptLossRate = 1 }
        delivery.enqueue(Support.record(1))
        await Support.drain(delivery)
        #expect(transport.posts.isEmpty)
        #expect(delivery.totals.lost == 6 && delivery.totals.dropped == 0)
    }

    @Test("lost attempts are recovered by Apple's retries")
    func attemptLossRecoveredByRetries() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(200)
        let delivery = Support.delivery(store: store, transport: transport) { $0.attemptLossRate = 0.5 }
        let records = (1...1_000).map { Support.record($0) }
        for record in records { delivery.enqueue(record) }
        await Support.drain(delivery)
        let delivered = records.filter { store.notification($0.notificationUUID)?.wasDelivered == true }.count
        // A notification stays lost only if all six attempts are: 1 in 64, about 16 of 1,000.
        #expect((1_000 - 40)...(1_000 - 3) ~= delivered)
        #expect(transport.posts.count == delivered)
        let totals = delivery.totals
        #expect(abs(Double(totals.lost) / Double(totals.attempts) - 0.5) < 0.05)
        #expect(totals.abandoned == 1_000 - delivered)
    }

    @Test("duplicateRate 1 sends every notification twice, a little later, with one history entry")
    func everyNotificationDuplicated() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(200)
        let delivery = Support.delivery(store: store, transport: transport) {
            $0.duplicateRate = 1
            $0.maximumDuplicateDelay = 20
        }
        let records = (1...5).map { Support.record($0) }
        for record in records { delivery.enqueue(record) }

        let first = await delivery.deliverDue(now: Support.start)
        #expect(first.successes == 5 && first.duplicatesSent == 0)
        #expect(transport.posts.count == 5)
        let due = delivery.nextDueDate.map { $0.timeIntervalSince(Support.start) }
        #expect(due.map { $0 >= 1 && $0 <= 20 } == true)

        let later = await delivery.deliverDue(now: Support.start.addingTimeInterval(20))
        #expect(later.duplicatesSent == 5 && later.attempts == 0)
        #expect(transport.posts.count == 10)
        for record in records {
            #expect(transport.posts.filter { $0.signedPayload == record.signedPayload }.count == 2)
            #expect(store.notification(record.notificationUUID)?.sendAttempts.count == 1)
        }
        #expect(delivery.pendingCount == 0)
    }

    @Test("over 2,000 notifications, drops and duplicates come close to the configured rates")
    func proportionsMatchRates() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(200)
        let delivery = Support.delivery(store: store, transport: transport) {
            $0.dropRate = 0.2
            $0.duplicateRate = 0.1
            $0.seed = 42
        }
        let records = (1...2_000).map { Support.record($0) }
        for record in records { delivery.enqueue(record) }
        await Support.drain(delivery)

        let totals = delivery.totals
        #expect(totals.notifications == 2_000)
        #expect(abs(Double(totals.dropped) / 2_000 - 0.2) < 0.03)
        let delivered = 2_000 - totals.dropped
        #expect(totals.successes == delivered)
        #expect(abs(Double(totals.duplicatesSent) / Double(delivered) - 0.1) < 0.03)
        let undelivered = records.filter { store.notification($0.notificationUUID)?.wasDelivered != true }.count
        #expect(undelivered == totals.dropped)
        #expect(transport.posts.count == delivered + totals.duplicatesSent)
    }

    @Test("the same seed gives the same posts and history twice; another seed does not")
    func seedMakesRunsIdentical() async {
        func run(seed: UInt64) async -> (posts: [RecordingNotificationTransport.Post], history: [NotificationRecord]) {
            let store = Support.store()
            let transport = RecordingNotificationTransport { _, earlier in .response(status: earlier == 0 ? 500 : 200) }
            let delivery = Support.delivery(store: store, transport: transport) {
                $0.dropRate = 0.3
                $0.attemptLossRate = 0.3
                $0.duplicateRate = 0.3
                $0.maximumDelay = 60
                $0.reorder = true
                $0.concurrency = 1
                $0.seed = seed
            }
            for index in 1...200 { delivery.enqueue(Support.record(index)) }
            await Support.drain(delivery)
            return (transport.posts, store.allNotifications)
        }
        let first = await run(seed: 7)
        let second = await run(seed: 7)
        let other = await run(seed: 8)
        #expect(first.posts == second.posts)
        #expect(first.history == second.history)
        #expect(first.posts != other.posts)
    }

    @Test("reordering shuffles posts due together but sends the same set")
    func reorderChangesOrderNotSet() async {
        func posts(reorder: Bool) async -> [String] {
            let transport = RecordingNotificationTransport.answering(200)
            let delivery = Support.delivery(store: Support.store(), transport: transport) {
                $0.reorder = reorder
                $0.concurrency = 1
            }
            for index in 1...50 { delivery.enqueue(Support.record(index)) }
            await delivery.deliverDue(now: Support.start)
            return transport.posts.compactMap(\.signedPayload)
        }
        let ordered = await posts(reorder: false)
        let shuffled = await posts(reorder: true)
        #expect(ordered == (1...50).map { Support.record($0).signedPayload })
        #expect(shuffled != ordered)
        #expect(Set(shuffled) == Set(ordered) && shuffled.count == 50)
    }

    @Test("first attempts are delayed by up to maximumDelay, and the history keeps the delayed instant")
    func firstAttemptDelay() async {
        let store = Support.store()
        let delivery = Support.delivery(store: store, transport: .answering(200)) { $0.maximumDelay = 10 }
        let records = (1...100).map { Support.record($0) }
        for record in records { delivery.enqueue(record) }
        #expect(await delivery.deliverDue(now: Support.start.addingTimeInterval(-1)).isEmpty)
        await delivery.deliverDue(now: Support.start.addingTimeInterval(10))
        let offsets = records.compactMap { store.notification($0.notificationUUID)?.sendAttempts.first?.attemptDate }
            .map { $0.timeIntervalSince(Support.start) }
        #expect(offsets.count == 100)
        #expect(offsets.allSatisfy { $0 >= 0 && $0 <= 10 })
        #expect(Set(offsets).count > 90)
    }

    @Test("no more posts are in flight than the concurrency allows, and all of them are made")
    func concurrencyIsBounded() async {
        // Long enough that three posts overlap even when a loaded machine starts their tasks late.
        let transport = RecordingNotificationTransport(latency: .milliseconds(250))
        let delivery = Support.delivery(store: Support.store(), transport: transport) { $0.concurrency = 3 }
        for index in 1...24 { delivery.enqueue(Support.record(index)) }
        let report = await delivery.deliverDue(now: Support.start)
        #expect(report.successes == 24)
        #expect(transport.maximumInFlight <= 3)
        #expect(transport.maximumInFlight >= 2)
    }

    @Test("enqueuing a notification twice sends it once; enqueue adds it to the history if missing")
    func enqueueIsIdempotent() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(200)
        let delivery = Support.delivery(store: store, transport: transport)
        let record = Support.record(1)
        #expect(store.notification(record.notificationUUID) == nil)
        #expect(delivery.enqueue(record) == [.v2])
        #expect(delivery.enqueue(record).isEmpty)
        #expect(store.notification(record.notificationUUID) != nil)
        await Support.drain(delivery)
        #expect(transport.posts.count == 1)
        #expect(transport.posts.first?.headers["Content-Type"] == "application/json")
    }

    @Test("a configuration decodes from {} with every default, and round-trips")
    func configurationDefaults() throws {
        let decoded = try JSONDecoder().decode(DeliveryConfiguration.self, from: Data("{}".utf8))
        #expect(decoded == DeliveryConfiguration())
        var custom = DeliveryConfiguration(v2URL: Support.v2URL, dropRate: 0.2, duplicateRate: 0.1, seed: 9)
        custom.concurrency = 2
        let again = try JSONDecoder().decode(DeliveryConfiguration.self, from: JSONEncoder().encode(custom))
        #expect(again == custom)
        let partial = try JSONDecoder().decode(DeliveryConfiguration.self, from: Data(#"{"dropRate":0.5}"#.utf8))
        #expect(partial.dropRate == 0.5 && partial.concurrency == 8)
    }

    @Test("the report's summary line groups thousands")
    func reportSummary() {
        let report = DeliveryReport(notifications: 14_210, dropped: 2_842, duplicatesSent: 1_421, retriesScheduled: 312)
        #expect(report.description == "notifications: 14,210 sent, 2,842 lost, 1,421 duplicated, 312 retried")
    }
}
