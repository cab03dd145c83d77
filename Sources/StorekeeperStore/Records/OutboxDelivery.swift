import Foundation

/// One event on its way to one destination (a webhook or an integration): written with the
/// event in the same transaction, leased by a dispatcher, retried until delivered or dead.
public struct OutboxDelivery: Sendable, Hashable {
    public var id: Int64
    public var appId: String
    public var destination: String
    public var state: DeliveryState
    /// Attempts leased so far (a lease counts as an attempt, as for jobs).
    public var attempts: Int
    public var nextAttemptAt: Date
    /// The last attempt's HTTP status, if it got one, and its error.
    public var lastStatus: Int?
    public var lastError: String?
    public var deliveredAt: Date?
    public var createdAt: Date
    /// The event, with its row id.
    public var event: EventRecord

    public init(
        id: Int64, appId: String, destination: String, state: DeliveryState, attempts: Int, nextAttemptAt: Date, lastStatus: Int?,
        lastError: String?, deliveredAt: Date?, createdAt: Date, event: EventRecord
    ) {
        self.id = id
        self.appId = appId
        self.destination = destination
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.deliveredAt = deliveredAt
        self.createdAt = createdAt
        self.event = event
    }
}

/// Where a delivery stands.
public enum DeliveryState: String, Sendable, Hashable, CaseIterable, Codable {
    /// Waiting for its next attempt (or leased to a dispatcher now).
    case pending
    /// The destination accepted it.
    case delivered
    /// Retries ran out, or the destination refused it for good: kept for replay.
    case dead
}

/// One attempt to deliver, as the per-destination delivery log shows it.
public struct DeliveryAttempt: Sendable, Hashable {
    public var deliveryId: Int64
    public var at: Date
    /// The HTTP status, when the destination answered.
    public var status: Int?
    public var error: String?
    public var durationMilliseconds: Int

    public init(deliveryId: Int64, at: Date, status: Int?, error: String?, durationMilliseconds: Int) {
        self.deliveryId = deliveryId
        self.at = at
        self.status = status
        self.error = error
        self.durationMilliseconds = durationMilliseconds
    }
}

/// What an attempt leaves the delivery in.
public enum DeliveryOutcome: Sendable, Hashable {
    case delivered
    case retry(at: Date)
    case dead
}
