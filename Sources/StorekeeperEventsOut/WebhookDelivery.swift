import Crypto
import Foundation
import StorekeeperStore

/// What a webhook is sent: the event's type and time beside ``EventData``, everything it says.
/// This type is the wire format; `docs/events.md` and the OpenAPI document's `WebhookMessage`
/// are tested against it (`EventWireFormatTests`).
public struct WebhookBody: Codable, Sendable, Equatable {
    /// The event's type (`subscription.renewed` …), as in ``EventData/type``.
    public var type: String
    /// When the event happened (ISO 8601), as in ``EventData/occurredAt``.
    public var timestamp: String
    public var data: EventData

    public init(_ data: EventData) {
        self.type = data.type
        self.timestamp = data.occurredAt
        self.data = data
    }
}

/// Everything a customer event says, as every destination starts from it: a webhook's `data`, the
/// fields a Slack or Telegram template names (`{productId}`), Amplitude's and Mixpanel's
/// properties. Absent fields are left out of the JSON.
public struct EventData: Codable, Sendable, Equatable {
    /// An identifier the customer is known by (``CustomerAlias``).
    public struct Alias: Codable, Sendable, Equatable {
        public var kind: String
        public var value: String
    }

    /// The event's stable id (`evt_` + 32 hex digits; the `webhook-id`).
    public var id: String
    public var appId: String
    public var type: String
    /// When it happened (ISO 8601).
    public var occurredAt: String
    public var customerId: String?
    /// The customer's aliases at the time of sending.
    public var aliases: [Alias]
    public var originalTransactionId: String?
    public var transactionId: String?
    public var productId: String?
    public var entitlements: [String]?
    /// `Production` or `Sandbox`.
    public var environment: String?
    public var storefront: String?
    /// `normal`, `trial`, `introductory`, `promotional`, `offerCode`, `winBack` or `retention`.
    public var periodType: String?
    /// The period's price in ``currency`` (a JSON number).
    public var price: Decimal?
    public var currency: String?
    /// The price in the app's reporting currency, and that currency.
    public var priceInReportingCurrency: Decimal?
    public var reportingCurrency: String?
    /// What the developer receives after Apple's commission, in ``currency``.
    public var proceeds: Decimal?
    /// When the current period ends (ISO 8601).
    public var expiresDate: String?
    public var expirationReason: String?
    public var priceIncreaseConsent: String?
    public var previousProductId: String?
    /// How the fact that revealed the event reached the server.
    public var source: String?
    /// `problem.opened` / `problem.resolved`: the problem's kind, its summary and evidence.
    public var problemKind: String?
    public var summary: String?
    public var evidence: [String: String]?
    /// `experiment.enrolled`: the experiment, the variant, its placement and offering.
    public var experimentId: String?
    public var variant: String?
    public var placement: String?
    public var offeringId: String?
    /// `retention.*`: Apple's request identifier, the customer's locale, the message shown, the
    /// promotional offer, the plan proposed and how it is billed.
    public var requestIdentifier: String?
    public var locale: String?
    public var messageIdentifier: String?
    public var offerIdentifier: String?
    public var alternateProductId: String?
    public var billingPlanType: String?

    /// What `event` says, with the customer's `aliases` at the time of sending.
    public init(_ event: EventRecord, aliases: [CustomerAlias]) {
        let details = event.details
        id = details.eventId ?? event.idempotencyKey
        appId = event.appId
        type = event.type.rawValue
        occurredAt = Timestamp.string(from: event.occurredAt)
        customerId = event.customerId
        self.aliases = aliases.map { Alias(kind: $0.kind.rawValue, value: $0.value) }
        originalTransactionId = event.originalTransactionId
        transactionId = details.transactionId
        productId = details.productId
        entitlements = details.entitlements
        environment = details.environment
        storefront = details.storefront
        periodType = details.periodType
        price = details.price
        currency = details.currency
        priceInReportingCurrency = details.priceInReportingCurrency
        reportingCurrency = details.reportingCurrency
        proceeds = details.proceeds
        expiresDate = details.expiresDate.map(Timestamp.string(from:))
        expirationReason = details.expirationReason
        priceIncreaseConsent = details.priceIncreaseConsent
        previousProductId = details.previousProductId
        source = details.source
        problemKind = details.problemKind
        summary = details.problemKind == nil ? nil : details.reason
        evidence = details.evidence
        experimentId = details.experimentId
        variant = details.variant
        placement = details.placement
        offeringId = details.offeringId
        requestIdentifier = details.requestIdentifier
        locale = details.locale
        messageIdentifier = details.messageIdentifier
        offerIdentifier = details.offerIdentifier
        alternateProductId = details.alternateProductId
        billingPlanType = details.billingPlanType
    }

    /// The customer's aliases, back as values.
    package var customerAliases: [CustomerAlias] {
        aliases.map { CustomerAlias(kind: CustomerAlias.Kind(rawValue: $0.kind), value: $0.value) }
    }

    /// The present fields by their JSON names, as JSON values (prices as `NSDecimalNumber`): what
    /// a template's `{field}` and an analytics vendor's properties read. The same names and values
    /// as the encoded JSON (a test holds them together).
    package var fields: [String: Any] {
        var fields: [String: Any] = [:]
        for child in Mirror(reflecting: self).children {
            guard let name = child.label, let value = Self.jsonValue(child.value) else { continue }
            fields[name] = value
        }
        return fields
    }

    private static func jsonValue(_ value: Any) -> Any? {
        switch value {
        case let string as String: string
        case let decimal as Decimal: NSDecimalNumber(decimal: decimal)
        case let list as [String]: list
        case let object as [String: String]: object
        case let aliases as [Alias]: aliases.map { ["kind": $0.kind, "value": $0.value] }
        default: nil
        }
    }
}

/// A customer event as a Standard Webhooks message: `webhook-id` (the event's stable id, the
/// same on every retry), `webhook-timestamp` (Unix seconds of this attempt) and
/// `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` with each
/// secret's key, space-separated during a rotation); the body a ``WebhookBody``.
public enum WebhookMessage {
    /// The JSON body of an event (keys sorted, slashes unescaped).
    package static func body(_ data: EventData) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(WebhookBody(data))) ?? Data("{}".utf8)
    }

    /// The `webhook-signature` header value for `body` sent as message `id` at `timestamp`.
    public static func signature(id: String, timestamp: Int64, body: Data, keys: [Data]) -> String {
        let signed = Data("\(id).\(timestamp).".utf8) + body
        return keys.map { key in
            "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))).base64EncodedString()
        }.joined(separator: " ")
    }
}

/// When a failed delivery is tried again: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and
/// 24 h after each failure (76 hours in all), each with ±10% jitter; then it is dead.
public enum RetrySchedule {
    public static let delays: [TimeInterval] = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400]

    /// The delay after failed attempt `attempt` (1-based), or `nil` when retries ran out.
    package static func delay(after attempt: Int, jitter: Double) -> TimeInterval? {
        guard attempt >= 1, attempt <= delays.count else { return nil }
        return delays[attempt - 1] * (1 + max(-0.1, min(0.1, jitter)))
    }
}
