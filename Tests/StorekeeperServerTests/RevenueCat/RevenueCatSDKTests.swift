import AppStoreTestSigning
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StorekeeperStore
import Testing

@Suite("RevenueCat SDK routes: purchases, identity, attributes and isolation")
struct RevenueCatSDKTests {
    static func subscriber(_ json: [String: Any]) -> [String: Any] { json["subscriber"] as? [String: Any] ?? [:] }
    static func entitlements(_ json: [String: Any]) -> [String: [String: Any]] {
        subscriber(json)["entitlements"] as? [String: [String: Any]] ?? [:]
    }
    static func date(_ value: Any?) -> Date? { (value as? String).flatMap(Timestamp.date(from:)) }

    @Test(
        "a purchase posted through v1/receipts (JWS, StoreKit 2 receipt, legacy receipt) appears in v1/subscribers",
        arguments: ServerBackend.available)
    func purchaseAppearsInCustomerInfo(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, configure: RevenueCatSDKFixture.configure) { harness, client in
            let t0 = Fixture.t0
            let expires = t0 + 30 * Fixture.day
            let signed = try harness.ca.signTransaction(
                try SignedData.transaction(id: "rc-1", original: "rc-1", purchase: t0 - 60, expires: expires, signed: t0, freeTrial: true))
            let posted = try await client.sdk(
                .post, "/v1/receipts",
                body: ["app_user_id": "rc-alice", "fetch_token": signed, "is_restore": false, "payload_version": 1, "observer_mode": false])
            #expect(posted.status == 200, "\(posted.text)")
            #expect(RevenueCatSDKShapes.customerInfo(posted.json).isEmpty)
            let read = try await client.sdk(.get, "/v1/subscribers/rc-alice")
            #expect(read.status == 200)
            let entitlement = try #require(Self.entitlements(read.json)["pro"])
            #expect(entitlement["product_identifier"] as? String == "pro.monthly")
            #expect(Self.date(entitlement["expires_date"]) == expires)
            let subscription = try #require((Self.subscriber(read.json)["subscriptions"] as? [String: [String: Any]])?["pro.monthly"])
            #expect(subscription["store"] as? String == "app_store")
            #expect(subscription["is_sandbox"] as? Bool == true)
            #expect(subscription["period_type"] as? String == "trial")
            #expect(subscription["store_transaction_id"] as? String == "rc-1")
            #expect(Self.date(subscription["expires_date"]) == expires)
            #expect(Self.subscriber(read.json)["original_app_user_id"] as? String == "rc-alice")
            #expect(Self.subscriber(read.json)["management_url"] as? String == "https://apps.apple.com/account/subscriptions")
            // The same state through Storekeeper's own API: one model.
            let own = try await client.call(.get, "/v1/apps/alpha/customers/rc-alice", key: Fixture.alphaKey)
            #expect((own.json["entitlements"] as? [[String: Any]])?.first?["identifier"] as? String == "pro")

            // StoreKit 2 data shaped like a receipt (the SDK's fetch token without an app receipt).
            let second = try harness.ca.signTransaction(
                try SignedData.transaction(id: "rc-2", original: "rc-2", purchase: t0 - 30, expires: expires, signed: t0))
            let storeKit2Receipt = try JSONSerialization.data(withJSONObject: [
                "bundle_id": Fixture.bundle, "environment": "sandbox", "transactions": [second],
                "subscription_status": ["pro": [["state": 1, "transaction": second, "renewal_info": "x"]]],
            ]).base64EncodedString()
            let sk2 = try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": "rc-bob", "fetch_token": storeKit2Receipt])
            #expect(sk2.status == 200, "\(sk2.text)")
            #expect(Self.entitlements(sk2.json)["pro"]?["product_identifier"] as? String == "pro.monthly")

            // A StoreKit 1 receipt with a lifetime purchase: a non-subscription.
            let receipt = try TestReceipts.receipt(purchases: [("pro.lifetime", "rc-life", "rc-life", t0 - 100, nil)], created: t0)
            let legacy = try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": "rc-carol", "fetch_token": receipt])
            #expect(legacy.status == 200, "\(legacy.text)")
            let lifetime = (Self.subscriber(legacy.json)["non_subscriptions"] as? [String: [[String: Any]]])?["pro.lifetime"]
            #expect(lifetime?.first?["store_transaction_id"] as? String == "rc-life")
            #expect(Self.entitlements(legacy.json)["pro"].map { $0["expires_date"] == nil || $0["expires_date"] is NSNull } == true)

            // A forged token is RevenueCat's invalid-receipt error.
            let forged = try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": "rc-alice", "fetch_token": "a.b.c"])
            #expect(forged.status == 422)
            #expect(forged.json["code"] as? Int == 7103)
        }
    }

    @Test("a chain another customer owns is refused with 7102, not transferred")
    func chainOfAnotherCustomer() async throws {
        try await ServerHarness.run(.memory, configure: RevenueCatSDKFixture.configure) { harness, client in
            let t0 = Fixture.t0
            let signed = try harness.ca.signTransaction(
                try SignedData.transaction(id: "own-1", original: "own-1", purchase: t0 - 60, expires: t0 + 30 * Fixture.day, signed: t0))
            #expect(try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": "owner", "fetch_token": signed]).status == 200)
            let replay = try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": "thief", "fetch_token": signed])
            #expect(replay.status == 409)
            #expect(replay.json["code"] as? Int == 7102)
            #expect(RevenueCatSDKShapes.error(replay.json).isEmpty)
            #expect(Self.entitlements(try await client.sdk(.get, "/v1/subscribers/thief").json).isEmpty)
            #expect(Self.entitlements(try await client.sdk(.get, "/v1/subscribers/owner").json)["pro"] != nil)
            // The SDK may ask first: the owner may, anyone else may not.
            let asked = try await client.sdk(.post, "/v1/subscribers/thief/restore/eligibility", body: ["fetch_token": signed])
            #expect(asked.status == 200)
            #expect(asked.json["is_purchase_allowed_by_restore_behavior"] as? Bool == false)
            let owner = try await client.sdk(.post, "/v1/subscribers/owner/restore/eligibility", body: ["fetch_token": signed])
            #expect(owner.json["is_purchase_allowed_by_restore_behavior"] as? Bool == true)
        }
    }

    @Test("logIn links a new id to a known anonymous customer (201), answers a known id as it is (200), never merges identified ids")
    func identifyLinksIds() async throws {
        try await ServerHarness.run(.memory, configure: RevenueCatSDKFixture.configure) { harness, client in
            let t0 = Fixture.t0
            let anonymous = "$RCAnonymousID:6b2787de2fb848a8b403a45f695ee74f"
            let signed = try harness.ca.signTransaction(
                try SignedData.transaction(id: "anon-1", original: "anon-1", purchase: t0 - 60, expires: t0 + 30 * Fixture.day, signed: t0))
            #expect(try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": anonymous, "fetch_token": signed]).status == 200)
            let login = try await client.sdk(.post, "/v1/subscribers/identify", body: ["app_user_id": anonymous, "new_app_user_id": "user-42"])
            #expect(login.status == 201, "\(login.text)")
            #expect(Self.subscriber(login.json)["original_app_user_id"] as? String == anonymous)
            #expect(Self.entitlements(login.json)["pro"] != nil)
            let read = try await client.sdk(.get, "/v1/subscribers/user-42")
            #expect(Self.subscriber(read.json)["original_app_user_id"] as? String == anonymous)
            #expect(Self.entitlements(read.json)["pro"] != nil)
            let escaped = try await client.sdk(.get, "/v1/subscribers/" + RevenueCatSDKFixture.escaped(anonymous))
            #expect(Self.entitlements(escaped.json)["pro"] != nil, "\(escaped.text)")
            let again = try await client.sdk(.post, "/v1/subscribers/identify", body: ["app_user_id": anonymous, "new_app_user_id": "user-42"])
            #expect(again.status == 200)
            // An identified customer switching to an unknown id is not linked to it.
            let other = try await client.sdk(.post, "/v1/subscribers/identify", body: ["app_user_id": "user-42", "new_app_user_id": "user-43"])
            #expect(other.status == 201)
            #expect(Self.subscriber(other.json)["original_app_user_id"] as? String == "user-43")
            #expect(Self.entitlements(other.json).isEmpty)
            // Purchases posted under the alias land on the original customer.
            let later = try harness.ca.signTransaction(
                try SignedData.transaction(
                    id: "anon-2", original: "anon-1", purchase: t0 + 30 * Fixture.day, expires: t0 + 60 * Fixture.day, signed: t0 + 30 * Fixture.day))
            harness.clock.set(t0 + 31 * Fixture.day)
            let renewed = try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": "user-42", "fetch_token": later])
            #expect(renewed.status == 200, "\(renewed.text)")
            #expect(Self.date(Self.entitlements(renewed.json)["pro"]?["expires_date"]) == t0 + 60 * Fixture.day)
            let empty = try await client.sdk(.post, "/v1/subscribers/identify", body: ["app_user_id": anonymous, "new_app_user_id": ""])
            #expect(empty.status == 400)
            #expect(empty.json["code"] as? Int == 7220)
        }
    }

    @Test("attributes round-trip: set, refused keys named, null removes, an older write is ignored", arguments: ServerBackend.available)
    func attributesRoundTrip(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, configure: RevenueCatSDKFixture.configure) { _, client in
            let ms = SignedData.ms(Fixture.t0)
            let first = try await client.sdk(
                .post, "/v1/subscribers/attr-user/attributes",
                body: [
                    "attributes": [
                        "$email": ["value": "a@example.com", "updated_at_ms": ms - 1000],
                        "favourite_colour": ["value": "green", "updated_at_ms": ms - 1000],
                        String(repeating: "k", count: 300): ["value": "too long a key", "updated_at_ms": ms],
                    ]
                ])
            #expect(first.status == 400)
            #expect(first.json["code"] as? Int == 7263)
            #expect((first.json["attribute_errors"] as? [[String: Any]])?.count == 1)
            var read = try await client.sdk(.get, "/v1/subscribers/attr-user")
            var attributes = Self.subscriber(read.json)["subscriber_attributes"] as? [String: [String: Any]]
            #expect(attributes?["$email"]?["value"] as? String == "a@example.com")
            #expect(attributes?["favourite_colour"]?["updated_at_ms"] as? Int64 == ms - 1000)
            let second = try await client.sdk(
                .post, "/v1/subscribers/attr-user/attributes",
                body: [
                    "attributes": [
                        "$email": ["value": NSNull(), "updated_at_ms": ms], "favourite_colour": ["value": "red", "updated_at_ms": ms - 5000],
                    ]
                ])
            #expect(second.status == 200, "\(second.text)")
            read = try await client.sdk(.get, "/v1/subscribers/attr-user")
            attributes = Self.subscriber(read.json)["subscriber_attributes"] as? [String: [String: Any]]
            #expect(attributes?["$email"] == nil)
            #expect(attributes?["favourite_colour"]?["value"] as? String == "green")
            // Attributes ride along with a receipt post too.
            let withReceipt = try await client.sdk(
                .post, "/v1/receipts", body: ["app_user_id": "attr-user", "attributes": ["$displayName": ["value": "Ada", "updated_at_ms": ms]]])
            #expect(withReceipt.status == 200)
            attributes = Self.subscriber(withReceipt.json)["subscriber_attributes"] as? [String: [String: Any]]
            #expect(attributes?["$displayName"]?["value"] as? String == "Ada")
            let malformed = try await client.sdk(.post, "/v1/subscribers/attr-user/attributes", body: ["attributes": [1, 2]])
            #expect(malformed.status == 400)
            #expect(malformed.json["code"] as? Int == 7264)
        }
    }

    @Test("an SDK key opens one app's SDK routes only; Storekeeper's keys do not open them; bad input is a RevenueCat 4xx")
    func isolation() async throws {
        try await ServerHarness.run(.memory, configure: RevenueCatSDKFixture.configure) { harness, client in
            let t0 = Fixture.t0
            let betaTransaction = try harness.ca.signTransaction(
                try SignedData.transaction(
                    id: "beta-1", original: "beta-1", purchase: t0 - 60, expires: t0 + 30 * Fixture.day, signed: t0, bundle: "com.example.beta"))
            let betaPost = try await client.sdk(
                .post, "/v1/receipts", key: RevenueCatSDKFixture.betaSDKKey, body: ["app_user_id": "bob", "fetch_token": betaTransaction])
            #expect(betaPost.status == 200, "\(betaPost.text)")
            #expect(Self.entitlements(try await client.sdk(.get, "/v1/subscribers/bob", key: RevenueCatSDKFixture.betaSDKKey).json)["pro"] != nil)
            // Alpha's key names alpha's customers only: beta's bob is a stranger there.
            let fromAlpha = try await client.sdk(.get, "/v1/subscribers/bob")
            #expect(fromAlpha.status == 200)
            #expect(Self.entitlements(fromAlpha.json).isEmpty)
            #expect((Self.subscriber(fromAlpha.json)["subscriptions"] as? [String: Any])?.isEmpty == true)
            // Beta's transaction posted with alpha's key fails alpha's bundle check.
            let crossPost = try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": "bob", "fetch_token": betaTransaction])
            #expect(crossPost.status == 422)

            // Storekeeper's own keys are refused here, and SDK keys there.
            for key in [Fixture.alphaKey, Fixture.alphaAdmin, "appl_unknownKey0123456789", ""] {
                let refused = try await client.sdk(.get, "/v1/subscribers/bob", key: key.isEmpty ? nil : key)
                #expect(refused.status == 401)
                #expect(refused.json["code"] as? Int == 7225)
            }
            for path in ["/v1/apps/alpha/customers/bob", "/v1/apps/beta/customers/bob", "/v1/apps/alpha/offerings"] {
                #expect(try await client.call(.get, path, key: RevenueCatSDKFixture.alphaSDKKey).status == 401, "\(path)")
                #expect(try await client.call(.get, path, key: RevenueCatSDKFixture.betaSDKKey).status == 401, "\(path)")
            }
            #expect(
                try await client.call(.post, "/v1/apps/alpha/customers/bob/purchases", key: RevenueCatSDKFixture.alphaSDKKey, body: "{}").status
                    == 401)

            // Input checks answer RevenueCat's errors.
            let badId = try await client.sdk(.get, "/v1/subscribers/bad%01id")
            #expect(badId.status == 400)
            #expect(badId.json["code"] as? Int == 7256)
            let longId = try await client.sdk(.get, "/v1/subscribers/" + String(repeating: "x", count: 257))
            #expect(longId.status == 400)
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(RevenueCatSDKFixture.alphaSDKKey)"
            let malformed = try await client.execute(
                uri: "/revenuecat/v1/receipts", method: .post, headers: headers, body: ByteBuffer(string: "{\"app_user_id\": "))
            #expect(malformed.status == .badRequest)
            let error = (try? JSONSerialization.jsonObject(with: Data(String(buffer: malformed.body).utf8))) as? [String: Any]
            #expect(error?["code"] as? Int == 7226)
            let huge = try await client.sdk(
                .post, "/v1/subscribers/bob/attributes", body: ["attributes": ["k": ["value": String(repeating: "v", count: 2_000_000)]]])
            #expect(huge.status == 413)
            #expect(RevenueCatSDKShapes.error(huge.json).isEmpty, "\(huge.text)")
            for (method, path) in [(HTTPRequest.Method.get, "/v1/receipts"), (.delete, "/v1/subscribers/bob"), (.put, "/v1/offers")] {
                let wrong = try await client.sdk(method, path)
                #expect((400..<500).contains(wrong.status), "\(method) \(path): \(wrong.text)")
                #expect(RevenueCatSDKShapes.error(wrong.json).isEmpty, "\(method) \(path): \(wrong.text)")
            }
            let unknown = try await client.sdk(.get, "/v1/nothing/here")
            #expect(unknown.status == 404)
            #expect(RevenueCatSDKShapes.error(unknown.json).isEmpty)
        }
    }
}
