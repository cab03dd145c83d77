import Foundation

/// One entry of the event log: something that happened to a customer or a subscription
/// (a purchase recorded, a notification processed, a status change, a grant).
///
/// Idempotent on ``idempotencyKey`` per app, so reprocessing writes no second copy.
public struct EventRecord: Sendable, Hashable {
    public var id: Int64?
    public var appId: String
    /// The customer, when known at the time.
    public var customerId: String?
    /// The chain the event concerns; links the event to whoever owns the chain later.
    public var originalTransactionId: String?
    /// What happened.
    public var type: EventType
    /// What the type says beyond the chain and time.
    public var details: EventDetails
    /// When it happened (for Apple's events, the signed date).
    public var occurredAt: Date
    /// Unique per app.
    public var idempotencyKey: String
    /// The destinations (webhooks, integrations) the event goes out to: a delivery for each is
    /// written with the event, in the same transaction (the outbox). Not stored on the event.
    public var destinations: [String] = []
    /// The W3C `traceparent` of the work that recorded the event, when tracing is on: its
    /// deliveries continue that trace (docs/observability.md).
    public var traceContext: String? = nil

    public init(
        id: Int64? = nil, appId: String, customerId: String? = nil, originalTransactionId: String? = nil,
        type: EventType, details: EventDetails = EventDetails(), occurredAt: Date, idempotencyKey: String
    ) {
        self.id = id
        self.appId = appId
        self.customerId = customerId
        self.originalTransactionId = originalTransactionId
        self.type = type
        self.details = details
        self.occurredAt = occurredAt
        self.idempotencyKey = idempotencyKey
    }
}
