import AppStoreModels
import AsyncHTTPClient
import Foundation
import Testing

@testable import AppStoreSimulator

/// Apple's retry schedules, and how transport failures map to Apple's `SendAttemptResult`.
@Suite("Delivery retry schedule and failure mapping")
struct NotificationRetryScheduleTests {
    private let hour: TimeInterval = 3600

    @Test("production V2 waits 1, 12, 24, 48, 72 h; V1 6, 24, 48 h; the sandbox never retries")
    func appleSchedules() {
        #expect(NotificationRetrySchedule.apple(channel: .v2, environment: .production).intervals == [1, 12, 24, 48, 72].map { $0 * hour })
        #expect(NotificationRetrySchedule.apple(channel: .v1, environment: .production).intervals == [6, 24, 48].map { $0 * hour })
        #expect(NotificationRetrySchedule.apple(channel: .v2, environment: .sandbox) == .singleAttempt)
        #expect(NotificationRetrySchedule.apple(channel: .v1, environment: .sandbox).maximumAttempts == 1)
        #expect(NotificationRetrySchedule.productionV2.maximumAttempts == 6)
    }

    @Test("each retry date counts from the previous attempt, and the schedule ends")
    func retryDates() {
        let start = Date(timeIntervalSince1970: 0)
        let schedule = NotificationRetrySchedule.productionV2
        #expect(schedule.retryDate(afterAttempt: 0, at: start) == start.addingTimeInterval(hour))
        #expect(schedule.retryDate(afterAttempt: 4, at: start) == start.addingTimeInterval(72 * hour))
        #expect(schedule.retryDate(afterAttempt: 5, at: start) == nil)
        #expect(schedule.retryDate(afterAttempt: -1, at: start) == nil)
    }

    @Test("a status from 200 to 206 is success, other statuses an unsuccessful response code")
    func transportResults() {
        #expect(NotificationTransportResult.response(status: 204).sendAttemptResult == .success)
        #expect(NotificationTransportResult.response(status: 410).sendAttemptResult == .unsuccessfulHttpResponseCode)
        #expect(NotificationTransportResult.failure(.tlsIssue).sendAttemptResult == .tlsIssue)
        #expect(!NotificationTransportResult.failure(.success).isSuccess)
        #expect(NotificationTransportResult.failure(.success).sendAttemptResult == .other)
    }

    @Test("AsyncHTTPClient's errors map to Apple's attempt results")
    func errorMapping() {
        struct Unexpected: Error {}
        let map = AsyncHTTPNotificationTransport.sendAttemptResult(for:)
        #expect(map(HTTPClientError.deadlineExceeded) == .timedOut)
        #expect(map(HTTPClientError.readTimeout) == .timedOut)
        #expect(map(HTTPClientError.connectTimeout) == .timedOut)
        #expect(map(HTTPClientError.remoteConnectionClosed) == .prematureClose)
        #expect(map(HTTPClientError.redirectCycleDetected) == .circularRedirect)
        #expect(map(HTTPClientError.tlsHandshakeTimeout) == .tlsIssue)
        #expect(map(HTTPClientError.bodyLengthMismatch) == .invalidResponse)
        #expect(map(Unexpected()) == .other)
    }
}
