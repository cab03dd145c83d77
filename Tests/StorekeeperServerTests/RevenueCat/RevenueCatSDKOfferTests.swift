import Crypto
import Foundation
import HummingbirdTesting
import StorekeeperApps
import StorekeeperServer
import Testing

@Suite("RevenueCat SDK routes: offers, eligibility, offerings and the entitlement mapping")
struct RevenueCatSDKOfferTests {
    @Test("v1/offers signs over the app user id for a former subscriber and refuses a stranger with 7232")
    func promotionalOffers() async throws {
        let apple = AppleAccess()
        let configure: (inout ServerConfiguration) throws -> Void = {
            try apple.configure(&$0)
            RevenueCatSDKFixture.configure(&$0)
        }
        try await ServerHarness.run(.memory, configure: configure, appleClients: apple.clients) { harness, client in
            let start = Fixture.t0 - 35 * Fixture.day
            let signed = try harness.ca.signTransaction(
                try SignedData.transaction(id: "offer-1", original: "offer-1", purchase: start, expires: start + 30 * Fixture.day, signed: start))
            #expect(try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": "lapsed", "fetch_token": signed]).status == 200)
            let wanted = [["offer_id": "come_back_50", "product_id": "pro.monthly", "subscription_group": "pro"]]
            let answer = try await client.sdk(
                .post, "/v1/offers", body: ["app_user_id": "lapsed", "fetch_token": signed, "generate_offers": wanted],
                headers: ["X-StoreKit2-Enabled": "false"])
            #expect(answer.status == 200, "\(answer.text)")
            #expect(RevenueCatSDKShapes.offers(answer.json).isEmpty, "\(answer.text)")
            let offer = try #require((answer.json["offers"] as? [[String: Any]])?.first)
            #expect(offer["key_id"] as? String == AppleAccess.keyId)
            let data = try #require(offer["signature_data"] as? [String: Any])
            let nonce = try #require(data["nonce"] as? String)
            let timestamp = try #require(data["timestamp"] as? Int)
            // Apple's string with the app user id as the application username (StoreKit 1).
            let exact = [Fixture.bundle, AppleAccess.keyId, "pro.monthly", "come_back_50", "lapsed", nonce, String(timestamp)]
                .joined(separator: "\u{2063}")
            let signature = try #require(data["signature"] as? String)
            let der = try #require(Data(base64Encoded: signature))
            #expect(apple.key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: der), for: Data(exact.utf8)))

            let stranger = try await client.sdk(.post, "/v1/offers", body: ["app_user_id": "stranger", "generate_offers": wanted])
            #expect(stranger.status == 200)
            let refused = try #require((stranger.json["offers"] as? [[String: Any]])?.first)
            #expect((refused["signature_error"] as? [String: Any])?["code"] as? Int == 7232)
        }
    }

    @Test("intro eligibility follows the engine; offerings and the entitlement mapping come from Storekeeper's documents")
    func eligibilityOfferingsMapping() async throws {
        try await ServerHarness.run(.memory, configure: RevenueCatSDKFixture.configure) { harness, client in
            let t0 = Fixture.t0
            let products = ["product_identifiers": ["pro.monthly", "pro.lifetime", "unknown.product"]]
            let fresh = try await client.sdk(.post, "/v1/subscribers/newbie/intro_eligibility", body: products)
            #expect(fresh.json["pro.monthly"] as? Bool == true)
            #expect(fresh.json["pro.lifetime"] is NSNull)
            #expect(fresh.json["unknown.product"] is NSNull)
            let trial = try harness.ca.signTransaction(
                try SignedData.transaction(
                    id: "tr-1", original: "tr-1", purchase: t0 - 60, expires: t0 + 7 * Fixture.day, signed: t0, freeTrial: true))
            #expect(try await client.sdk(.post, "/v1/receipts", body: ["app_user_id": "trialist", "fetch_token": trial]).status == 200)
            let used = try await client.sdk(.post, "/v1/subscribers/trialist/intro_eligibility", body: products)
            #expect(used.json["pro.monthly"] as? Bool == false)

            let mapping = try await client.sdk(.get, "/v1/product_entitlement_mapping")
            #expect(RevenueCatSDKShapes.productEntitlementMapping(mapping.json).isEmpty)
            let monthly = (mapping.json["product_entitlement_mapping"] as? [String: [String: Any]])?["pro.monthly"]
            #expect(monthly?["entitlements"] as? [String] == ["pro"])

            let document = """
                {"document": {"offerings": [{"id": "standard", "metadata": {"description": "The usual"},
                                "packages": [{"id": "rc_monthly", "productId": "pro.monthly"}, {"id": "rc_lifetime", "productId": "pro.lifetime"}]},
                               {"id": "germany", "packages": [{"id": "rc_monthly", "productId": "pro.monthly"}]}],
                 "placements": [{"id": "default", "defaultOffering": "standard",
                                 "rules": [{"id": "de", "offering": "germany", "storefronts": ["DEU"]}]},
                                {"id": "onboarding", "defaultOffering": "germany"}]}}
                """
            let saved = try await client.call(.put, "/v1/apps/alpha/offerings", key: Fixture.alphaAdmin, body: document)
            #expect((200..<300).contains(saved.status), "\(saved.text)")
            let offerings = try await client.sdk(.get, "/v1/subscribers/newbie/offerings", headers: ["X-Storefront": "USA"])
            #expect(offerings.status == 200, "\(offerings.text)")
            #expect(RevenueCatSDKShapes.offerings(offerings.json).isEmpty, "\(offerings.text)")
            #expect(offerings.json["current_offering_id"] as? String == "standard")
            let standard = (offerings.json["offerings"] as? [[String: Any]])?.first { $0["identifier"] as? String == "standard" }
            #expect(standard?["description"] as? String == "The usual")
            #expect((standard?["packages"] as? [[String: Any]])?.first?["platform_product_identifier"] as? String == "pro.monthly")
            #expect((standard?["packages"] as? [[String: Any]])?.map { $0["identifier"] as? String } == ["$rc_monthly", "$rc_lifetime"])
            let placements = offerings.json["placements"] as? [String: Any]
            #expect((placements?["offering_ids_by_placement"] as? [String: String]) == ["default": "standard", "onboarding": "germany"])
            let german = try await client.sdk(.get, "/v1/subscribers/newbie/offerings", headers: ["X-Storefront": "DEU"])
            #expect(german.json["current_offering_id"] as? String == "germany")
            #expect((german.json["targeting"] as? [String: Any])?["rule_id"] as? String == "de")
        }
    }
}
