import Foundation

/// One attempt to deliver a notification to your server.
public struct SendAttemptItem: Codable, Hashable, Sendable {
    /// When Apple attempted delivery.
    @AppStoreDate public var attemptDate: Date?

    /// The outcome of the attempt.
    public var sendAttemptResult: SendAttemptResult?

    /// Creates a value from its fields; optional fields default to absent.
    public init(attemptDate: Date? = nil, sendAttemptResult: SendAttemptResult? = nil) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }
}
