import AppStoreModels
import AppStoreSimulator
import Foundation
import Testing

/// Apple's delivery schedule: retries after the previous attempt, 200–206 success, sandbox once.
@Suite("Notification delivery follows Apple's retry schedule")
struct DeliveryRetryTests {
    typealias Support = DeliveryTestSupport

    @Test("a failing V2 endpoint gets 6 attempts at 0, 1, 13, 37, 85 and 157 h, then none")
    func failingEndpointGetsAppleSchedule() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(500)
        let delivery = Support.delivery(store: store, transport: transport)
        let record = Support.record(1)
        delivery.enqueue(record)

        let steps = await Support.drain(delivery)

        #expect(steps == 6)
        #expect(transport.posts.count == 6)
        #expect(Support.attemptHours(store, record.notificationUUID) == [0, 1, 13, 37, 85, 157])
        let results = store.notification(record.notificationUUID)?.sendAttempts.map(\.sendAttemptResult)
        #expect(results == Array(repeating: .unsuccessfulHttpResponseCode, count: 6))
        #expect(delivery.pendingCount == 0 && delivery.nextDueDate == nil)
        #expect(delivery.totals.attempts == 6 && delivery.totals.retriesScheduled == 5 && delivery.totals.abandoned == 1)
        #expect(await delivery.deliverDue(now: Support.start.addingTimeInterval(1_000 * Support.hour)).isEmpty)
    }

    @Test("each retry is due exactly its interval after the previous attempt, not before")
    func retriesAreNotSentEarly() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(503)
        let delivery = Support.delivery(store: store, transport: transport)
        delivery.enqueue(Support.record(1))

        let first = await delivery.deliverDue(now: Support.start)
        #expect(first.attempts == 1 && first.failures == 1 && first.retriesScheduled == 1)
        #expect(delivery.nextDueDate == Support.start.addingTimeInterval(Support.hour))
        let early = await delivery.deliverDue(now: Support.start.addingTimeInterval(Support.hour - 1))
        #expect(early.isEmpty)
        #expect(transport.posts.count == 1)
        await delivery.deliverDue(now: Support.start.addingTimeInterval(Support.hour))
        #expect(transport.posts.count == 2)
        #expect(delivery.nextDueDate == Support.start.addingTimeInterval(13 * Support.hour))
    }

    @Test("one coarse step sends every retry that fell due, dated at its scheduled instant")
    func coarseStepKeepsScheduledDates() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(500)
        let delivery = Support.delivery(store: store, transport: transport)
        let record = Support.record(1)
        delivery.enqueue(record)

        let report = await delivery.deliverDue(now: Support.start.addingTimeInterval(40 * Support.hour))

        #expect(report.attempts == 4)
        #expect(Support.attemptHours(store, record.notificationUUID) == [0, 1, 13, 37])
        #expect(delivery.nextDueDate == Support.start.addingTimeInterval(85 * Support.hour))
    }

    @Test("a 200 after two failures ends the retries")
    func successStopsRetries() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.failingFirst(2)
        let delivery = Support.delivery(store: store, transport: transport)
        let record = Support.record(1)
        delivery.enqueue(record)

        await Support.drain(delivery)

        #expect(transport.posts.count == 3)
        let attempts = store.notification(record.notificationUUID)?.sendAttempts ?? []
        #expect(attempts.map(\.sendAttemptResult) == [.unsuccessfulHttpResponseCode, .unsuccessfulHttpResponseCode, .success])
        #expect(Support.attemptHours(store, record.notificationUUID) == [0, 1, 13])
        #expect(delivery.totals == DeliveryReport(notifications: 1, attempts: 3, successes: 1, failures: 2, retriesScheduled: 2))
    }

    @Test(
        "every status from 200 to 206 is success; 199, 207, 3xx, 4xx and 5xx are failures",
        arguments: [
            (199, false), (200, true), (202, true), (206, true), (207, false), (301, false), (404, false), (500, false),
        ])
    func statusRangeDecidesSuccess(status: Int, succeeds: Bool) async {
        let store = Support.store(.sandbox)
        let delivery = Support.delivery(store: store, transport: .answering(status))
        let record = Support.record(1)
        delivery.enqueue(record)
        await delivery.deliverDue(now: Support.start)
        #expect(store.notification(record.notificationUUID)?.wasDelivered == succeeds)
    }

    @Test("the sandbox makes a single attempt and never retries")
    func sandboxSendsOnce() async {
        let store = Support.store(.sandbox)
        let transport = RecordingNotificationTransport.answering(500)
        let delivery = Support.delivery(store: store, transport: transport)
        let record = Support.record(1)
        delivery.enqueue(record)

        let report = await delivery.deliverDue(now: Support.start.addingTimeInterval(1_000 * Support.hour))

        #expect(transport.posts.count == 1)
        #expect(report == DeliveryReport(notifications: 1, attempts: 1, failures: 1, abandoned: 1))
        #expect(delivery.pendingCount == 0)
        #expect(store.notification(record.notificationUUID)?.sendAttempts.count == 1)
    }

    @Test("V1 is sent beside V2 on its own schedule (6, 24, 48 h) and stays out of the history")
    func v1HasItsOwnSchedule() async throws {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(500)
        let delivery = Support.delivery(store: store, transport: transport) { $0.v1URL = Support.v1URL }
        let v1Body = Data(#"{"notification_type":"DID_RENEW"}"#.utf8)
        let record = Support.record(1, v1Body: v1Body)
        #expect(delivery.enqueue(record) == [.v2, .v1])

        await Support.drain(delivery)

        let v1Posts = transport.posts.filter { $0.url == Support.v1URL }
        #expect(v1Posts.count == 4)
        #expect(v1Posts.allSatisfy { $0.body == v1Body })
        #expect(transport.posts.filter { $0.url == Support.v2URL }.count == 6)
        #expect(store.notification(record.notificationUUID)?.sendAttempts.count == 6)
        #expect(delivery.totals.attempts == 10 && delivery.totals.abandoned == 2)
    }

    @Test("the V1 retry instants are 6, 30 and 78 h after the first attempt")
    func v1RetryInstants() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(500)
        let delivery = Support.delivery(store: store, transport: transport) {
            $0.v2URL = nil
            $0.v1URL = Support.v1URL
        }
        delivery.enqueue(Support.record(1, v1Body: Data("{}".utf8)))
        var instants: [Double] = []
        while let next = delivery.nextDueDate {
            instants.append(next.timeIntervalSince(Support.start) / Support.hour)
            await delivery.deliverDue(now: next)
        }
        #expect(instants == [0, 6, 30, 78])
        #expect(transport.posts.count == 4)
    }

    @Test("a record without a V1 body is sent on V2 only, even with a V1 URL")
    func noV1BodyNoV1Post() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport.answering(200)
        let delivery = Support.delivery(store: store, transport: transport) { $0.v1URL = Support.v1URL }
        #expect(delivery.enqueue(Support.record(1)) == [.v2])
        await Support.drain(delivery)
        #expect(transport.posts.map(\.url) == [Support.v2URL])
    }

    @Test("with Apple's 2026 behaviour switched on, an HTTP 400 is not retried but a 500 is")
    func http400StopsRetriesWhenAsked() async {
        let store = Support.store()
        let transport = RecordingNotificationTransport { post, _ in
            .response(status: post.signedPayload?.hasSuffix("1") == true ? 400 : 500)
        }
        let delivery = Support.delivery(store: store, transport: transport) { $0.stopsRetryingAfterHTTP400 = true }
        delivery.enqueue(Support.record(1))
        delivery.enqueue(Support.record(2))
        await Support.drain(delivery)
        #expect(store.notification(Support.record(1).notificationUUID)?.sendAttempts.count == 1)
        #expect(store.notification(Support.record(2).notificationUUID)?.sendAttempts.count == 6)
    }
}
