import AppStoreModels
import Foundation
import Testing

@testable import AppStoreSimulator

/// The pure outbox: what is due when, and what each outcome schedules.
@Suite("Delivery outbox state machine")
struct DeliveryOutboxTests {
    typealias Support = DeliveryTestSupport

    private func outbox(
        _ environment: AppStoreEnvironment = .production, configure: (inout DeliveryConfiguration) -> Void = { _ in }
    ) -> DeliveryOutbox {
        var configuration = DeliveryConfiguration(v2URL: Support.v2URL, v1URL: Support.v1URL)
        configure(&configuration)
        return DeliveryOutbox(configuration: configuration, environment: environment)
    }

    @Test("posts due together come out in the order they were scheduled, later ones stay")
    func dueOrder() {
        var outbox = outbox()
        _ = outbox.enqueue(Support.record(2, at: Support.start.addingTimeInterval(10)))
        _ = outbox.enqueue(Support.record(1))
        _ = outbox.enqueue(Support.record(3))
        _ = outbox.enqueue(Support.record(4, at: Support.start.addingTimeInterval(11)))
        #expect(outbox.nextDueDate == Support.start)
        let due = outbox.takeDue(now: Support.start.addingTimeInterval(10))
        #expect(due.map(\.notificationUUID) == [1, 3, 2].map { Support.record($0).notificationUUID })
        #expect(outbox.pending.count == 1)
        #expect(outbox.nextDueDate == Support.start.addingTimeInterval(11))
        #expect(outbox.takeDue(now: Support.start.addingTimeInterval(10)).isEmpty)
    }

    @Test("the V2 body is Apple's {\"signedPayload\": …}; V1 posts the stored body")
    func bodies() throws {
        let record = Support.record(1, v1Body: Data("v1".utf8))
        let v2 = try #require(DeliveryOutbox.body(of: record, channel: .v2))
        #expect(String(decoding: v2, as: UTF8.self) == #"{"signedPayload":"\#(record.signedPayload)"}"#)
        #expect(DeliveryOutbox.body(of: record, channel: .v1) == Data("v1".utf8))
        #expect(DeliveryOutbox.body(of: Support.record(2), channel: .v1) == nil)
    }

    @Test("a failed V2 attempt yields a dated history entry and a retry an hour later")
    func failedAttemptSchedulesRetry() throws {
        var outbox = outbox()
        _ = outbox.enqueue(Support.record(1))
        let post = try #require(outbox.takeDue(now: Support.start).first)
        let completion = outbox.complete(post, outcome: .sent(.response(status: 502)))
        #expect(completion.historyEntry == SendAttemptItem(attemptDate: Support.start, sendAttemptResult: .unsuccessfulHttpResponseCode))
        #expect(completion.report == DeliveryReport(notifications: 1, attempts: 1, failures: 1, retriesScheduled: 1))
        let retry = try #require(outbox.pending.first)
        #expect(retry.attemptNumber == 1 && retry.dueDate == Support.start.addingTimeInterval(Support.hour))
    }

    @Test("a V1 attempt never enters the history, whatever its outcome")
    func v1HasNoHistory() throws {
        var outbox = outbox()
        #expect(outbox.enqueue(Support.record(1, v1Body: Data("{}".utf8))) == [.v2, .v1])
        let v1 = try #require(outbox.takeDue(now: Support.start).first { $0.channel == .v1 })
        let completion = outbox.complete(v1, outcome: .sent(.failure(.socketIssue)))
        #expect(completion.historyEntry == nil)
        #expect(outbox.pending.contains { $0.channel == .v1 && $0.dueDate == Support.start.addingTimeInterval(6 * Support.hour) })
    }

    @Test("a lost attempt is recorded as timed out and counted as lost")
    func lostAttempt() throws {
        var outbox = outbox(.sandbox)
        _ = outbox.enqueue(Support.record(1))
        let post = try #require(outbox.takeDue(now: Support.start).first { $0.channel == .v2 })
        let completion = outbox.complete(post, outcome: .lost)
        #expect(completion.historyEntry?.sendAttemptResult == .timedOut)
        #expect(completion.report == DeliveryReport(notifications: 1, attempts: 1, failures: 1, lost: 1, abandoned: 1))
        #expect(outbox.pending.isEmpty)
    }

    @Test("a duplicate is counted, recorded nowhere and never duplicated again")
    func duplicateCompletes() throws {
        var outbox = outbox { $0.duplicateRate = 1 }
        _ = outbox.enqueue(Support.record(1))
        let post = try #require(outbox.takeDue(now: Support.start).first { $0.channel == .v2 })
        _ = outbox.complete(post, outcome: .sent(.response(status: 200)))
        let duplicate = try #require(outbox.takeDue(now: Support.start.addingTimeInterval(60)).first)
        #expect(duplicate.kind == .duplicate && !outbox.isLost(duplicate))
        let completion = outbox.complete(duplicate, outcome: .sent(.response(status: 200)))
        #expect(completion.historyEntry == nil)
        #expect(completion.report == DeliveryReport(duplicatesSent: 1))
        #expect(outbox.pending.isEmpty)
    }

    @Test("without URLs nothing is scheduled")
    func noURLsNoPosts() {
        var outbox = DeliveryOutbox(configuration: DeliveryConfiguration(), environment: .production)
        #expect(outbox.enqueue(Support.record(1, v1Body: Data())).isEmpty)
        #expect(outbox.nextDueDate == nil)
    }
}
