import Crypto
import Foundation
import StorekeeperStore

/// A customer event as a Standard Webhooks message: `webhook-id` (the event's stable id, the
/// same on every retry), `webhook-timestamp` (Unix seconds of this attempt) and
/// `webhook-signature` (`v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` with each
/// secret's key, space-separated during a rotation); the body `{"type", "timestamp", "data"}`.
public enum WebhookMessage {
    /// The JSON body of `event` (aliases are the customer's at the time of sending).
    static func body(_ event: EventRecord, aliases: [CustomerAlias]) -> Data {
        let message: [String: Any] = [
            "type": event.type.rawValue, "timestamp": Timestamp.string(from: event.occurredAt), "data": data(event, aliases: aliases),
        ]
        return (try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }

    /// The aliases inside a `data` object, back as values.
    static func aliases(_ data: [String: Any]) -> [CustomerAlias] {
        (data["aliases"] as? [[String: String]] ?? []).compactMap { item in
            guard let kind = item["kind"], let value = item["value"] else { return nil }
            return CustomerAlias(kind: CustomerAlias.Kind(rawValue: kind), value: value)
        }
    }

    /// Everything an event says, as the `data` object every destination starts from.
    static func data(_ event: EventRecord, aliases: [CustomerAlias]) -> [String: Any] {
        let details = event.details
        var data: [String: Any] = [
            "id": details.eventId ?? event.idempotencyKey, "appId": event.appId, "type": event.type.rawValue,
            "occurredAt": Timestamp.string(from: event.occurredAt),
        ]
        data["customerId"] = event.customerId
        data["aliases"] = aliases.map { ["kind": $0.kind.rawValue, "value": $0.value] }
        data["originalTransactionId"] = event.originalTransactionId
        data["transactionId"] = details.transactionId
        data["productId"] = details.productId
        data["entitlements"] = details.entitlements
        data["environment"] = details.environment
        data["storefront"] = details.storefront
        data["periodType"] = details.periodType
        data["price"] = details.price.map { NSDecimalNumber(decimal: $0) }
        data["currency"] = details.currency
        data["priceInReportingCurrency"] = details.priceInReportingCurrency.map { NSDecimalNumber(decimal: $0) }
        data["reportingCurrency"] = details.reportingCurrency
        data["proceeds"] = details.proceeds.map { NSDecimalNumber(decimal: $0) }
        data["expiresDate"] = details.expiresDate.map(Timestamp.string(from:))
        data["expirationReason"] = details.expirationReason
        data["priceIncreaseConsent"] = details.priceIncreaseConsent
        data["previousProductId"] = details.previousProductId
        data["source"] = details.source
        data["problemKind"] = details.problemKind
        data["summary"] = details.problemKind == nil ? nil : details.reason
        data["evidence"] = details.evidence
        data["experimentId"] = details.experimentId
        data["variant"] = details.variant
        data["placement"] = details.placement
        data["offeringId"] = details.offeringId
        return data
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
    static func delay(after attempt: Int, jitter: Double) -> TimeInterval? {
        guard attempt >= 1, attempt <= delays.count else { return nil }
        return delays[attempt - 1] * (1 + max(-0.1, min(0.1, jitter)))
    }
}
