import Foundation
import NIOCore
import StorekeeperStore
import Testing

@testable import StorekeeperEventsOut
@testable import StorekeeperHTTP
@testable import StorekeeperServer

/// The wire format of a customer event (``WebhookBody``, ``EventData``) against what is published
/// of it: the OpenAPI document's `WebhookMessage` and `EventData`, and the field table of
/// `docs/events.md`. A field added to the type and not to them (or the other way) fails here.
@Suite("Events: the wire format")
struct EventWireFormatTests {
    /// An event that says everything an event can.
    static let full: EventData = {
        var details = EventDetails()
        details.eventId = "evt_" + String(repeating: "ab", count: 16)
        details.transactionId = "2000000000000002"
        details.productId = "pro.monthly"
        details.expiresDate = Date(timeIntervalSince1970: 1_800_000_000)
        details.source = "notification"
        details.environment = "Production"
        details.storefront = "USA"
        details.entitlements = ["pro"]
        details.periodType = "normal"
        details.price = Decimal(string: "9.99")
        details.currency = "USD"
        details.priceInReportingCurrency = Decimal(string: "9.99")
        details.reportingCurrency = "USD"
        details.proceeds = Decimal(string: "8.49")
        details.expirationReason = "voluntary"
        details.priceIncreaseConsent = "accepted"
        details.previousProductId = "pro.yearly"
        details.problemKind = "charged_not_delivered"
        details.reason = "the app's webhook did not take it"
        details.evidence = ["deliveryId": "7"]
        details.experimentId = "paywall-1"
        details.variant = "b"
        details.placement = "onboarding"
        details.offeringId = "default"
        details.requestIdentifier = "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9"
        details.locale = "en-US"
        details.messageIdentifier = "0d6c1f4e-1b1d-4f3a-9a51-4b1e2f0a7c11"
        details.offerIdentifier = "stay_50"
        details.alternateProductId = "pro.yearly"
        details.billingPlanType = "MONTHLY"
        let event = EventRecord(
            appId: "app", customerId: "customer-1", originalTransactionId: "2000000000000001", type: .renewed, details: details,
            occurredAt: Date(timeIntervalSince1970: 1_790_000_000), idempotencyKey: "key")
        return EventData(event, aliases: [CustomerAlias(kind: .appAccountToken, value: "4f1c2d3e-0000-4000-8000-000000000001")])
    }()

    static func encodedKeys(_ data: EventData) throws -> Set<String> {
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(data)) as? [String: Any])
        return Set(object.keys)
    }

    @Test("every field is encoded once set, the fields templates read are the same, and prices are the exact decimal")
    func fieldsAndEncoding() throws {
        let keys = try Self.encodedKeys(Self.full)
        #expect(keys.count == Mirror(reflecting: Self.full).children.count)
        #expect(Set(Self.full.fields.keys) == keys)
        let body = String(decoding: WebhookMessage.body(Self.full), as: UTF8.self)
        #expect(body.contains(#""price":9.99"#), "\(body)")
        #expect(body.contains(#""proceeds":8.49"#))
        #expect(body.hasPrefix(#"{"data":{"#))
        #expect(body.contains(#""timestamp":"2026-09-21T"#))
        let decoded = try JSONDecoder().decode(WebhookBody.self, from: Data(body.utf8))
        #expect(decoded == WebhookBody(Self.full))
        #expect((Self.full.fields["price"] as? NSDecimalNumber)?.decimalValue == Decimal(string: "9.99"))
    }

    @Test("absent fields are left out of the JSON, not written as null")
    func absentFields() throws {
        let event = EventRecord(appId: "app", type: .testEvent, occurredAt: Date(timeIntervalSince1970: 0), idempotencyKey: "k")
        let data = EventData(event, aliases: [])
        #expect(try Self.encodedKeys(data) == ["id", "appId", "type", "occurredAt", "aliases"])
        #expect(!String(decoding: WebhookMessage.body(data), as: UTF8.self).contains("null"))
        #expect(data.id == "k")
    }

    @Test("the OpenAPI document's WebhookMessage and EventData describe exactly the type's fields")
    func openAPI() throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes.readableBytesView)) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let eventData = try #require(schemas["EventData"] as? [String: Any])
        let properties = try #require(eventData["properties"] as? [String: Any])
        #expect(Set(properties.keys) == (try Self.encodedKeys(Self.full)))
        let absent = EventData(EventRecord(appId: "a", type: .testEvent, occurredAt: Date(), idempotencyKey: "k"), aliases: [])
        #expect(Set(eventData["required"] as? [String] ?? []) == (try Self.encodedKeys(absent)))
        let message = try #require(schemas["WebhookMessage"] as? [String: Any])
        let messageProperties = try #require(message["properties"] as? [String: Any])
        let bodyKeys = try #require(
            try JSONSerialization.jsonObject(with: WebhookMessage.body(Self.full)) as? [String: Any]
        ).keys
        #expect(Set(messageProperties.keys) == Set(bodyKeys))
    }

    @Test("docs/events.md's field table lists exactly the type's fields")
    func documented() throws {
        let text = try String(
            contentsOf: EventVocabularyTests.root.appendingPathComponent("docs/events.md"), encoding: .utf8)
        let rows = Set(text.matches(of: /\n\| `([A-Za-z]+)` \|/).map { String($0.output.1) })
        #expect(rows == (try Self.encodedKeys(Self.full)))
    }
}
