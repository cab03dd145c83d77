import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperEventsOut
import StorekeeperServer
import StorekeeperStore
import SubscriptionAnalytics
import Testing

/// RevenueCat's webhook fields as its documentation lists them ("Event Types and Fields": the
/// common fields and the subscription lifecycle fields), with their JSON types, whether they may
/// be `null`, and the event types a field belongs to only (`nil`: every type).
enum RevenueCatDocumentedFields {
    enum Kind: String { case string, integer, double, boolean, array, map }

    struct Field {
        var name: String
        var kind: Kind
        var nullable: Bool
        var onlyFor: Set<String>?
    }

    static let types: Set<String> = [
        "TEST", "INITIAL_PURCHASE", "NON_RENEWING_PURCHASE", "RENEWAL", "PRODUCT_CHANGE", "CANCELLATION", "BILLING_ISSUE", "SUBSCRIBER_ALIAS",
        "SUBSCRIPTION_PAUSED", "UNCANCELLATION", "TRANSFER", "SUBSCRIPTION_EXTENDED", "EXPIRATION", "TEMPORARY_ENTITLEMENT_GRANT",
        "INVOICE_ISSUANCE", "VIRTUAL_CURRENCY_TRANSACTION",
    ]
    static let reasons: Set<String> = ["UNSUBSCRIBE", "BILLING_ERROR", "DEVELOPER_INITIATED", "PRICE_INCREASE", "CUSTOMER_SUPPORT", "UNKNOWN"]

    static let fields: [Field] = [
        Field(name: "type", kind: .string, nullable: false),
        Field(name: "id", kind: .string, nullable: false),
        Field(name: "app_id", kind: .string, nullable: false),
        Field(name: "event_timestamp_ms", kind: .integer, nullable: false),
        Field(name: "app_user_id", kind: .string, nullable: false),
        Field(name: "original_app_user_id", kind: .string, nullable: false),
        Field(name: "aliases", kind: .array, nullable: false),
        Field(name: "subscriber_attributes", kind: .map, nullable: false),
        Field(name: "product_id", kind: .string, nullable: false),
        Field(name: "entitlement_ids", kind: .array, nullable: true),
        Field(name: "entitlement_id", kind: .string, nullable: true),
        Field(name: "period_type", kind: .string, nullable: false),
        Field(name: "purchased_at_ms", kind: .integer, nullable: false),
        Field(name: "expiration_at_ms", kind: .integer, nullable: true),
        Field(name: "store", kind: .string, nullable: false),
        Field(name: "environment", kind: .string, nullable: false),
        Field(name: "presented_offering_id", kind: .string, nullable: true),
        Field(name: "price", kind: .double, nullable: true),
        Field(name: "currency", kind: .string, nullable: true),
        Field(name: "price_in_purchased_currency", kind: .double, nullable: true),
        Field(name: "tax_percentage", kind: .double, nullable: true),
        Field(name: "commission_percentage", kind: .double, nullable: true),
        Field(name: "takehome_percentage", kind: .double, nullable: false),
        Field(name: "transaction_id", kind: .string, nullable: false),
        Field(name: "original_transaction_id", kind: .string, nullable: false),
        Field(name: "is_family_share", kind: .boolean, nullable: false),
        // Documented without `null`; a grant has no storefront to tell it.
        Field(name: "country_code", kind: .string, nullable: true),
        Field(name: "offer_code", kind: .string, nullable: true),
        Field(name: "is_trial_conversion", kind: .boolean, nullable: false, onlyFor: ["RENEWAL"]),
        Field(name: "cancel_reason", kind: .string, nullable: false, onlyFor: ["CANCELLATION"]),
        Field(name: "expiration_reason", kind: .string, nullable: false, onlyFor: ["EXPIRATION"]),
        Field(name: "new_product_id", kind: .string, nullable: false, onlyFor: ["PRODUCT_CHANGE"]),
        Field(name: "grace_period_expiration_at_ms", kind: .integer, nullable: true, onlyFor: ["BILLING_ISSUE"]),
    ]

    /// What is wrong with a webhook body, by the documentation (empty: nothing).
    static func problems(in body: Data) -> [String] {
        guard let top = try? JSONDecoder().decode([String: JSONValue].self, from: body) else { return ["the body is not a JSON object"] }
        var problems: [String] = []
        if top["api_version"] != .string("1.0") { problems.append("api_version is not \"1.0\"") }
        guard case .object(let event)? = top["event"] else { return problems + ["no event object"] }
        guard case .string(let type)? = event["type"], types.contains(type) else {
            return problems + ["unknown type \(String(describing: event["type"]))"]
        }
        for field in fields {
            let applies = field.onlyFor.map { $0.contains(type) } ?? true
            guard let value = event[field.name] else {
                if applies { problems.append("\(type): \(field.name) is missing") }
                continue
            }
            if !applies {
                problems.append("\(type): \(field.name) is only for \(field.onlyFor!.sorted())")
                continue
            }
            if value == .null {
                if !field.nullable { problems.append("\(type): \(field.name) is null") }
                continue
            }
            if !value.matches(field.kind) { problems.append("\(type): \(field.name) is \(value), not \(field.kind.rawValue)") }
        }
        for name in ["cancel_reason", "expiration_reason"] {
            if case .string(let reason)? = event[name], !reasons.contains(reason) { problems.append("\(type): \(name) \(reason) is not documented") }
        }
        if case .string(let id)? = event["id"], UUID(uuidString: id)?.uuidString != id { problems.append("id \(id) is not an upper-case UUID") }
        if case .string(let environment)? = event["environment"], !["SANDBOX", "PRODUCTION"].contains(environment) {
            problems.append("environment \(environment)")
        }
        if case .string(let period)? = event["period_type"], !["TRIAL", "INTRO", "NORMAL", "PROMOTIONAL", "PREPAID"].contains(period) {
            problems.append("period_type \(period)")
        }
        return problems
    }
}

/// A JSON value with its exact kind (a JSON `true` is never a number, `4.99` never an integer).
enum JSONValue: Decodable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func matches(_ kind: RevenueCatDocumentedFields.Kind) -> Bool {
        switch (self, kind) {
        case (.string, .string), (.integer, .integer), (.bool, .boolean), (.array, .array), (.object, .map): true
        // A JSON number with no fraction (`0`, `-10`) is a double too.
        case (.double, .double), (.integer, .double): true
        default: false
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}

@Suite("Events out: RevenueCat-format webhooks")
struct RevenueCatWebhookTests {
    static let authorization = "Bearer rc-hook-secret-0123"

    static func configure(_ configuration: inout ServerConfiguration) {
        let index = configuration.apps.firstIndex { $0.id == "alpha" }!
        configuration.apps[index].allowPrivateNetworks = true
        var revenueCat = IntegrationConfiguration(id: "rc", type: .revenuecat)
        revenueCat.url = "http://127.0.0.1:9/revenuecat"
        revenueCat.authorization = authorization
        configuration.apps[index].integrations = [revenueCat]
        configuration.apps[index].revenueCat = RevenueCatSettings(revenueCatAppId: "app1a2b3c4d")
        configuration.apps[index].analytics = AnalyticsConfiguration(reportingCurrency: "USD", exchangeRates: ["EUR": 1.1])
    }

    static func event(_ post: RecordingTransport.Post) -> [String: Any] { post.json["event"] as? [String: Any] ?? [:] }

    @Test("a subscription's life, a refund and a grant arrive as RevenueCat events with every documented field, authorized, the same id on retry")
    func lifecycle() async throws {
        try await ServerHarness.run(.sqlite, configure: Self.configure) { harness, client in
            let transport = RecordingTransport()
            let work = try WebhookTests.work(harness, transport)
            let t0 = Fixture.t0
            let day = Fixture.day
            // A free trial bought by the app for rc-dana, known to the app as "dana@app".
            harness.clock.set(t0 + 60)
            let trial = try SignedData.transaction(
                id: "8501", original: "8501", purchase: t0, expires: t0 + 7 * day, signed: t0, price: 0, freeTrial: true)
            let purchase = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(trial))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/rc-dana/purchases", key: Fixture.alphaKey, body: purchase).status == 200)
            try await harness.store.apply(
                Changeset(
                    appId: "alpha", at: t0 + 60,
                    links: [CustomerLink(customerId: "rc-dana", aliases: [CustomerAlias(kind: .appUserId, value: "dana@app")])]))
            try await harness.store.setCustomerAttributes(
                appId: "alpha", customerId: "rc-dana", [CustomerAttribute(key: "$email", value: "dana@example.com", updatedAt: t0)], at: t0 + 60)
            // The receiver fails once: the retry carries the same id.
            await transport.answer(WebhookAnswer(status: 500))
            #expect(try await work.dispatcher.drain() == 1)
            harness.clock.set(t0 + 60 + 6)
            #expect(try await work.dispatcher.drain() == 1)

            func notify(
                _ type: String, _ subtype: String? = nil, at date: Date, transaction: String, purchase: Date, autoRenew: Bool = true
            ) async throws {
                harness.clock.set(date + 60)
                let signed = try SignedData.transaction(
                    id: transaction, original: "8501", purchase: purchase, expires: purchase + 30 * day, signed: date)
                let renewal = try SignedData.renewal(original: "8501", autoRenew: autoRenew, signed: date)
                let body = try SignedData.notification(harness.ca, type: type, subtype: subtype, signed: date, transaction: signed, renewal: renewal)
                #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: body).status == 200)
                try await harness.processor.drain()
                try await work.dispatcher.drain()
            }
            // The trial converts (subscription.started and trial.converted: one RENEWAL), renews, is cancelled, expires.
            try await notify("DID_RENEW", at: t0 + 7 * day, transaction: "8502", purchase: t0 + 7 * day)
            try await notify("DID_RENEW", at: t0 + 37 * day, transaction: "8503", purchase: t0 + 37 * day)
            try await notify(
                "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", at: t0 + 40 * day, transaction: "8503", purchase: t0 + 37 * day, autoRenew: false)
            harness.clock.set(t0 + 67 * day + 1)
            try await work.runDueJobs()
            try await work.dispatcher.drain()

            // Another customer buys in euros and is refunded.
            let euro = try SignedData.transaction(
                id: "8601", original: "8601", purchase: t0 + 67 * day, expires: t0 + 97 * day, signed: t0 + 67 * day, price: 8990, currency: "EUR")
            let euroBody = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(euro))\"}"
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/rc-erik/purchases", key: Fixture.alphaKey, body: euroBody).status == 200)
            harness.clock.set(t0 + 70 * day + 60)
            let refunded = try SignedData.transaction(
                id: "8601", original: "8601", purchase: t0 + 67 * day, expires: t0 + 97 * day, signed: t0 + 70 * day, revoked: t0 + 70 * day,
                price: 8990, currency: "EUR")
            let refund = try SignedData.notification(harness.ca, type: "REFUND", signed: t0 + 70 * day, transaction: refunded, renewal: nil)
            #expect(try await client.call(.post, "/v1/apps/alpha/notifications", body: refund).status == 200)
            try await harness.processor.drain()
            // A grant and its revocation.
            let grant = #"{"productId": "pro.lifetime", "grantId": "g-rc", "reason": "goodwill"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/rc-dana/grants", key: Fixture.alphaAdmin, body: grant).status == 201)
            let revoke = #"{"action": "revoke", "transactionId": "grant:g-rc", "reason": "mistake"}"#
            #expect(try await client.call(.post, "/v1/apps/alpha/customers/rc-dana/grants", key: Fixture.alphaAdmin, body: revoke).status == 201)
            try await work.dispatcher.drain()

            let posts = await transport.posts
            #expect(posts.allSatisfy { $0.url == "http://127.0.0.1:9/revenuecat" })
            #expect(posts.allSatisfy { $0.headers["authorization"] == Self.authorization && $0.headers["content-type"] == "application/json" })
            for post in posts {
                let problems = RevenueCatDocumentedFields.problems(in: post.body)
                #expect(problems.isEmpty, "\(problems)")
            }
            let events = posts.map(Self.event)
            // The failed first post and its retry: one id, one event timestamp.
            #expect(events[0]["id"] as? String == events[1]["id"] as? String)
            #expect(events[0]["event_timestamp_ms"] as? Int64 == events[1]["event_timestamp_ms"] as? Int64)
            let delivered = Array(events.dropFirst())
            #expect(Set(delivered.compactMap { $0["id"] as? String }).count == delivered.count)
            let summary = delivered.map { event in
                [event["type"] as? String, event["cancel_reason"] as? String ?? event["expiration_reason"] as? String].compactMap { $0 }.joined(
                    separator: " ")
            }
            #expect(
                summary == [
                    "INITIAL_PURCHASE", "RENEWAL", "RENEWAL", "CANCELLATION UNSUBSCRIBE", "EXPIRATION UNSUBSCRIBE", "INITIAL_PURCHASE",
                    "CANCELLATION CUSTOMER_SUPPORT", "NON_RENEWING_PURCHASE", "EXPIRATION DEVELOPER_INITIATED",
                ], "\(summary)")

            let started = delivered[0]
            #expect(started["period_type"] as? String == "TRIAL" && started["app_id"] as? String == "app1a2b3c4d")
            #expect(started["app_user_id"] as? String == "rc-dana" && started["original_app_user_id"] as? String == "rc-dana")
            #expect(started["aliases"] as? [String] == ["rc-dana", "dana@app"])
            #expect(started["store"] as? String == "APP_STORE" && started["environment"] as? String == "SANDBOX")
            #expect(started["purchased_at_ms"] as? Int64 == SignedData.ms(t0) && started["expiration_at_ms"] as? Int64 == SignedData.ms(t0 + 7 * day))
            #expect(started["country_code"] as? String == "US" && started["entitlement_ids"] as? [String] == ["pro"])
            let attributes = started["subscriber_attributes"] as? [String: Any]
            #expect((attributes?["$email"] as? [String: Any])?["value"] as? String == "dana@example.com")
            let converted = delivered[1]
            #expect(converted["is_trial_conversion"] as? Bool == true && converted["transaction_id"] as? String == "8502")
            #expect(converted["price"] as? Double == 9.99 && converted["currency"] as? String == "USD")
            #expect(converted["takehome_percentage"] as? Double == 0.7 && converted["commission_percentage"] as? Double == 0.3)
            #expect(delivered[2]["is_trial_conversion"] as? Bool == false)
            let euros = delivered[5]
            #expect(euros["price_in_purchased_currency"] as? Double == 8.99 && euros["currency"] as? String == "EUR")
            #expect(euros["price"] as? Double == 9.89)
            let refundEvent = delivered[6]
            #expect(refundEvent["price"] as? Double == -9.89 && refundEvent["price_in_purchased_currency"] as? Double == -8.99)
            #expect(delivered[7]["store"] as? String == "PROMOTIONAL" && delivered[7]["period_type"] as? String == "PROMOTIONAL")
            // trial.converted has no counterpart: no delivery was ever made for it.
            let counts = try await harness.store.deliveryCounts(appId: "alpha")
            #expect(counts["rc"]?[.delivered] == 9 && counts["rc"]?[.pending] ?? 0 == 0 && counts["rc"]?[.dead] ?? 0 == 0, "\(counts)")
            // The operator's test of the destination is RevenueCat's TEST.
            #expect(try await client.call(.post, "/v1/apps/alpha/destinations/rc/test", key: Fixture.alphaAdmin).status == 202)
            try await work.dispatcher.drain()
            let test = try #require(await transport.posts.last)
            #expect(Self.event(test)["type"] as? String == "TEST" && test.headers["authorization"] == Self.authorization)
            #expect(try await harness.store.deliveryCounts(appId: "alpha")["rc"]?[.delivered] == 10)
        }
    }

    @Test("every customer event type maps to at most one RevenueCat type, and the destination takes exactly the mapped ones")
    func mappingTable() {
        let expected: [EventType: String] = [
            .subscriptionStarted: "INITIAL_PURCHASE", .trialStarted: "INITIAL_PURCHASE", .renewed: "RENEWAL", .productChanged: "PRODUCT_CHANGE",
            .autoRenewDisabled: "CANCELLATION", .autoRenewEnabled: "UNCANCELLATION", .billingIssue: "BILLING_ISSUE", .expired: "EXPIRATION",
            .trialExpired: "EXPIRATION", .refunded: "CANCELLATION", .revoked: "EXPIRATION", .extended: "SUBSCRIPTION_EXTENDED",
            .oneTimePurchase: "NON_RENEWING_PURCHASE", .entitlementGranted: "NON_RENEWING_PURCHASE", .entitlementRevoked: "EXPIRATION",
            .testEvent: "TEST",
        ]
        var integration = IntegrationConfiguration(id: "rc", type: .revenuecat)
        integration.url = "https://example.com/rc"
        for type in EventType.customerEvents {
            let mapped = RevenueCatWebhook.type(of: type.rawValue, followsTrial: false)
            #expect(mapped == expected[type], "\(type.rawValue)")
            #expect(integration.wants(type: type.rawValue, environment: "Production") == (mapped != nil), "\(type.rawValue)")
            if let mapped { #expect(RevenueCatDocumentedFields.types.contains(mapped)) }
        }
        #expect(RevenueCatWebhook.type(of: EventType.subscriptionStarted.rawValue, followsTrial: true) == "RENEWAL")
        // `events` narrows the mapped types; it never widens them.
        integration.events = ["subscription.renewed", "problem.opened"]
        #expect(integration.wants(type: "subscription.renewed", environment: nil))
        #expect(!integration.wants(type: "problem.opened", environment: nil) && !integration.wants(type: "subscription.started", environment: nil))
        integration.authorization = "Bearer abc"
        #expect(integration.problem(allowsPrivateNetworks: false) == nil)
        integration.authorization = "Bearer abc\r\nX-Injected: 1"
        #expect(integration.problem(allowsPrivateNetworks: false)?.contains("authorization") == true)
        integration.authorization = nil
        integration.url = nil
        #expect(integration.problem(allowsPrivateNetworks: false)?.contains("needs url") == true)
    }

    @Test("the id is an upper-case name-based UUID of the event id: stable, distinct per event")
    func stableIds() {
        let a = RevenueCatWebhook.eventId("evt_00112233445566778899aabbccddeeff")
        #expect(a == RevenueCatWebhook.eventId("evt_00112233445566778899aabbccddeeff"))
        #expect(a != RevenueCatWebhook.eventId("evt_00112233445566778899aabbccddeef0"))
        let uuid = UUID(uuidString: a)
        #expect(uuid?.uuidString == a && Array(a)[14] == "5" && "89AB".contains(Array(a)[19]))
    }

    @Test("prices in US dollars through the reporting currency's rates, or null; take-home from proceeds or the Small Business Program")
    func money() {
        let usd = AnalyticsConfiguration(reportingCurrency: "USD", exchangeRates: ["EUR": 1.1])
        #expect(RevenueCatWebhook.dollars(10, currency: "EUR", analytics: usd) == 11)
        #expect(RevenueCatWebhook.dollars(10, currency: "JPY", analytics: usd) == nil)
        let euro = AnalyticsConfiguration(reportingCurrency: "EUR", exchangeRates: ["USD": 0.9, "GBP": 1.2])
        #expect(RevenueCatWebhook.dollars(9, currency: "EUR", analytics: euro) == 10)
        #expect(RevenueCatWebhook.dollars(3, currency: "GBP", analytics: euro) == 4)
        #expect(RevenueCatWebhook.dollars(5, currency: "USD", analytics: euro) == 5)
        let small = AnalyticsConfiguration(smallBusiness: true)
        var data = Self.data(type: .renewed)
        data.price = nil
        #expect(
            (RevenueCatWebhook.money(data: data, refund: false, analytics: small)["takehome_percentage"] as? NSDecimalNumber)?.doubleValue == 0.85)
        data.price = 10
        data.proceeds = 8.5
        data.currency = "USD"
        let money = RevenueCatWebhook.money(data: data, refund: false, analytics: usd)
        #expect((money["takehome_percentage"] as? NSDecimalNumber)?.doubleValue == 0.85)
        #expect((money["commission_percentage"] as? NSDecimalNumber)?.doubleValue == 0.15)
        #expect(money["tax_percentage"] is NSNull)
    }

    @Test("each mapped event has every documented field with its documented type")
    func documentedFieldsEveryType() throws {
        let settings = RevenueCatWebhook.Settings(appId: "app1", analytics: AnalyticsConfiguration())
        for type in EventType.customerEvents {
            let data = Self.data(type: type)
            let body = RevenueCatWebhook.body(data: data, purchase: RevenueCatWebhook.Purchase(purchasedAt: Fixture.t0), settings: settings)
            guard let body else {
                #expect(RevenueCatWebhook.type(of: type.rawValue, followsTrial: false) == nil)
                continue
            }
            let problems = RevenueCatDocumentedFields.problems(in: body)
            #expect(problems.isEmpty, "\(type.rawValue): \(problems)")
        }
        // A chain nobody claimed: an anonymous app user id, the same for every event of the chain.
        var anonymous = Self.data(type: .renewed)
        anonymous.customerId = nil
        let first = RevenueCatWebhook.event(data: anonymous, purchase: nil, settings: settings)?["app_user_id"] as? String
        anonymous.id = "evt_ffff"
        #expect(first?.hasPrefix("$RCAnonymousID:") == true)
        #expect(RevenueCatWebhook.event(data: anonymous, purchase: nil, settings: settings)?["app_user_id"] as? String == first)
    }

    /// An event's data as the dispatcher reads it.
    static func data(type: EventType) -> EventData {
        var details = EventDetails(productId: "pro.monthly", expiresDate: Fixture.t0 + 30 * Fixture.day, transactionId: "9001")
        details.eventId = "evt_" + String(repeating: "a", count: 32)
        details.environment = "Production"
        details.storefront = "DEU"
        details.entitlements = ["pro"]
        details.periodType = "normal"
        details.price = 9.99
        details.currency = "USD"
        details.expirationReason = "billingError"
        details.previousProductId = type == .productChanged ? "pro.yearly" : nil
        let record = EventRecord(
            appId: "alpha", customerId: "zoe", originalTransactionId: "9001", type: type, details: details, occurredAt: Fixture.t0,
            idempotencyKey: "event:x")
        return EventData(record, aliases: [])
    }
}
