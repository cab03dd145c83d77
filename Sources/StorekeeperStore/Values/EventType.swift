import SubscriptionEngine

/// The kind of an ``EventRecord``: a dotted name, and the project's one vocabulary of them. An
/// open set (events out and analytics read the names; a newer version may add some); the
/// constants below are every name the server writes, and no other file spells one out.
///
/// Two families share the type and the table:
/// - **customer events** (``customerEvents``), which go out to webhooks and vendors: the
///   engine's transitions (``Transition/Kind``, the one source of "the state changed"), refund
///   requests, problems, experiment enrolments and the test event;
/// - **internal records** (``internalRecords``), the server's own log of what it did, shown on
///   the timeline and read by the analytics but never delivered: ``statusChanged``,
///   ``notificationProcessed``, ``purchaseRecorded``, ``grantRecorded``, ``revocationRecorded``
///   and the refund answers.
public struct EventType: OpenStringValue {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// The event of an engine transition: the same name.
    public init(_ kind: Transition.Kind) { self.init(rawValue: kind.rawValue) }

    // MARK: Customer events: the engine's transitions

    public static let subscriptionStarted = EventType(.subscriptionStarted)
    public static let trialStarted = EventType(.trialStarted)
    public static let trialConverted = EventType(.trialConverted)
    public static let trialExpired = EventType(.trialExpired)
    public static let renewed = EventType(.renewed)
    public static let productChanged = EventType(.productChanged)
    public static let autoRenewDisabled = EventType(.autoRenewDisabled)
    public static let autoRenewEnabled = EventType(.autoRenewEnabled)
    public static let billingIssue = EventType(.billingIssue)
    public static let gracePeriodStarted = EventType(.gracePeriodStarted)
    public static let billingRecovered = EventType(.billingRecovered)
    public static let expired = EventType(.expired)
    public static let refunded = EventType(.refunded)
    public static let revoked = EventType(.revoked)
    public static let extended = EventType(.extended)
    public static let priceIncrease = EventType(.priceIncrease)
    public static let oneTimePurchase = EventType(.oneTimePurchase)
    public static let entitlementGranted = EventType(.entitlementGranted)
    public static let entitlementRevoked = EventType(.entitlementRevoked)

    // MARK: Customer events: the server's own

    /// Apple asked for consumption information about a refund request.
    public static let consumptionRequested: EventType = "consumption.requested"
    /// A problem (an operator's alert) opened.
    public static let problemOpened: EventType = "problem.opened"
    /// A problem resolved.
    public static let problemResolved: EventType = "problem.resolved"
    /// A customer joined an experiment's variant.
    public static let experimentEnrolled: EventType = "experiment.enrolled"
    /// Apple asked what to show a customer on the cancellation sheet (a Retention Messaging
    /// real-time request) and the server answered with a message.
    public static let retentionMessageShown: EventType = "retention.message_shown"
    /// … answered with a switch to another plan.
    public static let retentionAlternateProductShown: EventType = "retention.alternate_product_shown"
    /// … answered with a promotional offer signed for the customer.
    public static let retentionOfferShown: EventType = "retention.offer_shown"
    /// … had nothing to answer (no retention placement, or nothing the customer may take), so
    /// Apple shows the app's default message.
    public static let retentionDefaultShown: EventType = "retention.default_shown"
    /// The test event an operator sends a destination.
    public static let testEvent: EventType = "test.event"

    // MARK: Internal records

    /// A chain's status changed (or it got its first one), whatever the source of the fact.
    public static let statusChanged: EventType = "subscription.status_changed"
    /// The app posted a transaction or receipt and the ledger gained a purchase.
    public static let purchaseRecorded: EventType = "purchase.recorded"
    /// A server notification was verified and its facts recorded. Written until schema 24: the
    /// inbox row's outcome says it (and the customer's timeline lists the row); the rows written
    /// before are kept and shown.
    public static let notificationProcessed: EventType = "notification.processed"
    /// The operator granted access.
    public static let grantRecorded: EventType = "grant.recorded"
    /// The operator took a transaction or grant back.
    public static let revocationRecorded: EventType = "revoke.recorded"
    /// Consumption information was sent to Apple for a refund request.
    public static let consumptionSent: EventType = "refund.consumption_sent"
    /// A refund request's consumption information was not sent (policy or consent).
    public static let consumptionNotAnswered: EventType = "refund.consumption_not_answered"
    /// A refund request's window closed before it was answered.
    public static let consumptionExpired: EventType = "refund.consumption_expired"

    /// The events that go out (webhooks, vendors), in the order the event reference lists them.
    public static let customerEvents: [EventType] =
        Transition.Kind.all.map(EventType.init)
        + [.consumptionRequested, .problemOpened, .problemResolved, .experimentEnrolled] + retentionEvents + [.testEvent]

    /// The answers to Retention Messaging real-time requests, one per request.
    public static let retentionEvents: [EventType] = [
        .retentionMessageShown, .retentionAlternateProductShown, .retentionOfferShown, .retentionDefaultShown,
    ]

    /// The server's own records, never delivered.
    public static let internalRecords: [EventType] = [
        .statusChanged, .purchaseRecorded, .notificationProcessed, .grantRecorded, .revocationRecorded, .consumptionSent, .consumptionNotAnswered,
        .consumptionExpired,
    ]
}
