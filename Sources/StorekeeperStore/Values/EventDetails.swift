import Foundation

/// What an event says beyond its type, chain and time. Each type fills the fields listed for
/// it; every value is text in JSON (instants as ``Timestamp`` strings), so the stored payload,
/// the API's `details` and the webhooks carry the same object.
public struct EventDetails: Sendable, Hashable, Codable {
    /// `subscription.status_changed`: the status before (absent for a first status) and after.
    public var from: String?
    public var to: String?
    /// The product concerned (status changes, purchases, grants).
    public var productId: String?
    /// `subscription.status_changed`: when the current period ends, if it does.
    public var expiresDate: Date?
    /// The transaction concerned (purchases, grants, revocations, consumption answers).
    public var transactionId: String?
    /// `purchase.recorded`: how the app sent it (``FactSource``).
    public var source: String?
    /// `notification.processed`: Apple's type, subtype and id of the notification.
    public var notificationType: String?
    public var subtype: String?
    public var notificationUUID: String?
    /// `notification.processed`: the inbox row and the notification version (`1` or `2`).
    public var inboxId: String?
    public var version: String?
    /// Consumption answers: the app's refund policy, Apple's deadline, what was sent or why not.
    public var policy: String?
    public var deadline: Date?
    public var refundPreference: String?
    public var reason: String?
    /// Customer events (`subscription.renewed` …): the event's stable id (`evt_…`), the
    /// environment and storefront of the period, the product's entitlements, the period's kind
    /// (`normal`, `trial`, `introductory`, `promotional`, `offerCode`, `winBack`, `retention`), its price in its
    /// currency and in the app's reporting currency, the proceeds after Apple's commission, and
    /// the expiration reason or price-increase consent where the type has one.
    public var eventId: String?
    public var environment: String?
    public var storefront: String?
    public var entitlements: [String]?
    public var periodType: String?
    public var price: Decimal?
    public var currency: String?
    public var priceInReportingCurrency: Decimal?
    public var reportingCurrency: String?
    public var proceeds: Decimal?
    public var expirationReason: String?
    public var priceIncreaseConsent: String?
    public var previousProductId: String?
    /// `problem.opened` / `problem.resolved`: the problem's kind, its summary (in ``reason``) and
    /// its evidence.
    public var problemKind: String?
    public var evidence: [String: String]?
    /// `experiment.enrolled`: the experiment, the variant the customer got, its placement and
    /// offering.
    public var experimentId: String?
    public var variant: String?
    public var placement: String?
    public var offeringId: String?
    /// `retention.*`: Apple's request identifier, the customer's locale, and what was answered:
    /// the message, the offer, the plan to switch to and how it is billed.
    public var requestIdentifier: String?
    public var locale: String?
    public var messageIdentifier: String?
    public var offerIdentifier: String?
    public var alternateProductId: String?
    public var billingPlanType: String?

    public init(
        from: String? = nil, to: String? = nil, productId: String? = nil, expiresDate: Date? = nil, transactionId: String? = nil,
        source: String? = nil, notificationType: String? = nil, subtype: String? = nil, notificationUUID: String? = nil,
        inboxId: String? = nil, version: String? = nil, policy: String? = nil, deadline: Date? = nil,
        refundPreference: String? = nil, reason: String? = nil
    ) {
        self.from = from
        self.to = to
        self.productId = productId
        self.expiresDate = expiresDate
        self.transactionId = transactionId
        self.source = source
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.inboxId = inboxId
        self.version = version
        self.policy = policy
        self.deadline = deadline
        self.refundPreference = refundPreference
        self.reason = reason
    }

    /// The JSON object text the store keeps (sorted keys, absent fields left out): what
    /// `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes (instants as
    /// ``Timestamp`` strings), written directly, as every event of every notification needs it.
    public var json: String {
        var fields: [(key: String, value: String)] = []
        func text(_ key: String, _ value: String?) { if let value { fields.append((key, StoreCoding.quoted(value))) } }
        func date(_ key: String, _ value: Date?) { if let value { fields.append((key, StoreCoding.quoted(Timestamp.string(from: value)))) } }
        func number(_ key: String, _ value: Decimal?) { if let value { fields.append((key, value.description)) } }
        text("from", from)
        text("to", to)
        text("productId", productId)
        date("expiresDate", expiresDate)
        text("transactionId", transactionId)
        text("source", source)
        text("notificationType", notificationType)
        text("subtype", subtype)
        text("notificationUUID", notificationUUID)
        text("inboxId", inboxId)
        text("version", version)
        text("policy", policy)
        date("deadline", deadline)
        text("refundPreference", refundPreference)
        text("reason", reason)
        text("eventId", eventId)
        text("environment", environment)
        text("storefront", storefront)
        if let entitlements { fields.append(("entitlements", "[" + entitlements.map(StoreCoding.quoted).joined(separator: ",") + "]")) }
        text("periodType", periodType)
        number("price", price)
        text("currency", currency)
        number("priceInReportingCurrency", priceInReportingCurrency)
        text("reportingCurrency", reportingCurrency)
        number("proceeds", proceeds)
        text("expirationReason", expirationReason)
        text("priceIncreaseConsent", priceIncreaseConsent)
        text("previousProductId", previousProductId)
        text("problemKind", problemKind)
        if let evidence {
            fields.append(("evidence", StoreCoding.encode(evidence)))
        }
        text("experimentId", experimentId)
        text("variant", variant)
        text("placement", placement)
        text("offeringId", offeringId)
        text("requestIdentifier", requestIdentifier)
        text("locale", locale)
        text("messageIdentifier", messageIdentifier)
        text("offerIdentifier", offerIdentifier)
        text("alternateProductId", alternateProductId)
        text("billingPlanType", billingPlanType)
        fields.sort { $0.key < $1.key }
        return "{" + fields.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }

    /// The same text through `JSONEncoder` (what ``json`` must equal; kept for the tests).
    var encodedJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .timestamp
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Reads stored JSON text back; text that does not decode (a row a newer version wrote
    /// with a shape this one does not know) gives empty details rather than an error.
    public init(json: String) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .timestamp
        self = (try? decoder.decode(EventDetails.self, from: Data(json.utf8))) ?? EventDetails()
    }
}
