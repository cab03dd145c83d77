import Foundation

/// The kinds of background job the scheduler runs (the `kind` column of the jobs table).
public struct JobKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Ask Apple for one subscription's statuses at the engine's next look, record what it
    /// says, and schedule the following look. Payload: ``RefreshPayload``.
    public static let refreshSubscription = JobKind(rawValue: "refreshSubscription")
    /// Plan a look for every chain the ledger knows that has none yet (periodic).
    public static let planLooks = JobKind(rawValue: "planLooks")
    /// Replay the notifications Apple failed to deliver in a window through the inbox
    /// (periodic). Payload: ``SweepPayload``.
    public static let notificationSweep = JobKind(rawValue: "notificationSweep")
    /// Replay the refunds and revocations of a window from the notification history, delivered
    /// or not (periodic, slower). Payload: ``SweepPayload``.
    public static let refundSweep = JobKind(rawValue: "refundSweep")
    /// Ask Apple for one chain's refunds. No longer planned (refund sweeps go through the
    /// notification history); jobs queued by an earlier version still run. Payload: ``RefreshPayload``.
    public static let refundCheck = JobKind(rawValue: "refundCheck")
    /// Answer one `CONSUMPTION_REQUEST` under the app's refund policy. Payload: ``ConsumptionPayload``.
    public static let consumptionAnswer = JobKind(rawValue: "consumptionAnswer")
    /// Records a chain's customer events that happen by the clock (a period ending with no
    /// renewal, a grace period running out), at the instant the engine says the state changes.
    public static let transitions = JobKind(rawValue: "transitions")
    /// Hourly checks of an app's intake: a spike of rejected notifications, or silence while
    /// subscriptions are live (each a problem opened once and resolved when it clears).
    public static let intakeHealth = JobKind(rawValue: "intakeHealth")
    /// POSTs one notification the notification URL accepted to the app's
    /// `notificationForwarding` URL, once (its key is the notification's). Payload: ``ForwardPayload``.
    public static let forwardNotification = JobKind(rawValue: "forwardNotification")

    public var description: String { rawValue }

    /// Every kind this version runs, for the metrics' labels (`storekeeper_job_failures_total`).
    package static let known: [JobKind] = [
        .refreshSubscription, .planLooks, .notificationSweep, .refundSweep, .refundCheck, .consumptionAnswer, .transitions, .intakeHealth,
        .forwardNotification,
    ]
}

/// The input of a ``JobKind/refreshSubscription`` job.
public struct RefreshPayload: Sendable, Codable, Hashable {
    public var originalTransactionId: String
    /// How many ledger entries the chain had when the look was planned: when it has more by
    /// the time the job runs (a notification arrived), the look is planned again instead of
    /// asking Apple.
    public var ledgerCount: Int?
    /// The look's instant (milliseconds since 1970): Apple asked only once the notification
    /// history has been swept past it and what the sweep replayed is processed, so a notification
    /// that was lost on the way is found without a call.
    public var awaitedMillis: Int64?
    public init(originalTransactionId: String, ledgerCount: Int? = nil, awaitedMillis: Int64? = nil) {
        self.originalTransactionId = originalTransactionId
        self.ledgerCount = ledgerCount
        self.awaitedMillis = awaitedMillis
    }
}

/// The window of a periodic sweep, in milliseconds since 1970.
public struct SweepPayload: Sendable, Codable, Hashable {
    public var startMillis: Int64
    public var endMillis: Int64
    public init(startMillis: Int64, endMillis: Int64) {
        self.startMillis = startMillis
        self.endMillis = endMillis
    }
}

/// The inbox row of a `CONSUMPTION_REQUEST` to answer.
public struct ConsumptionPayload: Sendable, Codable, Hashable {
    public var inboxId: Int64
    public init(inboxId: Int64) { self.inboxId = inboxId }
}

/// The inbox row of a notification to forward.
public struct ForwardPayload: Sendable, Codable, Hashable {
    public var inboxId: Int64
    public init(inboxId: Int64) { self.inboxId = inboxId }
}

extension JSONEncoder {
    /// The payload's JSON text (sorted keys, so equal payloads give equal text).
    package static func payload<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
