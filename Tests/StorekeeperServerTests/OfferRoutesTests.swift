import AppStoreServerAPI
import Crypto
import Foundation
import HummingbirdTesting
import StorekeeperServer
import Testing

@Suite("Promotional offer signing")
struct OfferRoutesTests {
    static let nonce = "5d4a5e3b-0c1f-4b7e-9a3d-2f8e6c7b1a90"
    static let token = "7f1e0c2a-2222-4000-8000-0000000000cd"

    /// Records a monthly subscription bought a month before t0 for `customer` of alpha, whose
    /// app account token is ``token`` (as if the server had issued it: Apple's strings below
    /// are written with it).
    static func subscribe(_ customer: String, _ harness: ServerHarness, _ client: any TestClientProtocol) async throws {
        let start = Fixture.t0.addingTimeInterval(-35 * Fixture.day)
        let tx = try SignedData.transaction(id: "8100001", original: "8100001", purchase: start, expires: start + 30 * Fixture.day, signed: start)
        let body = "{\"signedTransaction\": \"\(try harness.ca.signTransaction(tx))\"}"
        let response = try await client.call(.post, "/v1/apps/alpha/customers/\(customer)/purchases", key: Fixture.alphaKey, body: body)
        #expect(response.status == 200, "\(response.text)")
        _ = try await harness.store.issueAppAccountToken(appId: "alpha", customerId: customer, proposed: token, at: Fixture.t0)
    }

    static func decodeSegment(_ segment: Substring) throws -> [String: Any] {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test(
        "a former subscriber gets a legacy signature over Apple's exact string, valid under the key's public half", arguments: ServerBackend.available
    )
    func legacySignature(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { harness, client in
            try await Self.subscribe("winback", harness, client)
            let body =
                #"{"customerId":"winback","productId":"pro.monthly","offerId":"come_back_50","appAccountToken":"7F1E0C2A-2222-4000-8000-0000000000CD","nonce":"\#(Self.nonce.uppercased())"}"#
            let response = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: body)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.json["format"] as? String == "legacy")
            #expect(response.json["keyId"] as? String == AppleAccess.keyId)
            #expect(response.json["nonce"] as? String == Self.nonce)
            #expect(response.json["appAccountToken"] as? String == Self.token)
            #expect(response.json["productId"] as? String == "pro.monthly")
            #expect(response.json["offerId"] as? String == "come_back_50")
            #expect(response.json["signedOffer"] == nil)
            let timestamp = try #require(response.json["timestamp"] as? Int64)
            #expect(timestamp == Int64(Fixture.t0.timeIntervalSince1970 * 1000))
            let signature = try #require(response.json["signature"] as? String)

            // Apple's string, built here by hand: fields joined by U+2063.
            let exact = [Fixture.bundle, AppleAccess.keyId, "pro.monthly", "come_back_50", Self.token, Self.nonce, String(timestamp)]
                .joined(separator: "\u{2063}")
            let der = try #require(Data(base64Encoded: signature))
            let ecdsa = try P256.Signing.ECDSASignature(derRepresentation: der)
            #expect(apple.key.publicKey.isValidSignature(ecdsa, for: Data(exact.utf8)))
            #expect(!apple.key.publicKey.isValidSignature(ecdsa, for: Data(exact.replacingOccurrences(of: "come_back_50", with: "other").utf8)))
            #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(ecdsa, for: Data(exact.utf8)))
            let fields = PromotionalOfferSignature.Fields(
                bundleId: Fixture.bundle, keyId: AppleAccess.keyId, productId: "pro.monthly", offerId: "come_back_50",
                appAccountToken: Self.token, nonce: try #require(UUID(uuidString: Self.nonce)), timestamp: timestamp)
            #expect(fields.signedString == exact)
            #expect(PromotionalOfferSignature(fields: fields, signature: signature).isValid(publicKey: apple.key.publicKey))
        }
    }

    @Test(
        "the signature carries the token issued to the customer (its current one when none is named); another's is refused; without a nonce a fresh one is made",
        arguments: ServerBackend.available)
    func legacyDefaults(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { harness, client in
            try await Self.subscribe("winback", harness, client)
            let missing = try await client.call(
                .post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey,
                body: #"{"customerId":"winback","productId":"pro.monthly","offerId":"o1"}"#)
            #expect(missing.status == 200, "\(missing.text)")
            #expect(missing.json["appAccountToken"] as? String == Self.token)
            let body = #"{"customerId":"winback","productId":"pro.monthly","offerId":"o1","appAccountToken":"\#(Self.token)"}"#
            let response = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: body)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.json["appAccountToken"] as? String == Self.token)
            let nonce = try #require(response.json["nonce"] as? String)
            #expect(UUID(uuidString: nonce) != nil && nonce == nonce.lowercased())
            let timestamp = try #require(response.json["timestamp"] as? Int64)
            let exact = [Fixture.bundle, AppleAccess.keyId, "pro.monthly", "o1", Self.token, nonce, String(timestamp)].joined(separator: "\u{2063}")
            let signature = try #require(response.json["signature"] as? String)
            let der = try #require(Data(base64Encoded: signature))
            #expect(apple.key.publicKey.isValidSignature(try P256.Signing.ECDSASignature(derRepresentation: der), for: Data(exact.utf8)))
            // The token is winback's: another customer cannot have a signature with it.
            let stolen = #"{"customerId":"other","productId":"pro.monthly","offerId":"o1","appAccountToken":"\#(Self.token.uppercased())"}"#
            let refused = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: stolen)
            #expect(refused.status == 409)
            #expect(refused.json.errorCode == "app_account_token_not_issued")
            #expect(try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: body).status == 200)
        }
    }

    @Test("format jws gives a signed offer with Apple's promotional-offer audience and claims", arguments: ServerBackend.available)
    func jwsOffer(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { harness, client in
            try await Self.subscribe("winback", harness, client)
            let body =
                #"{"customerId":"winback","productId":"pro.monthly","offerId":"come_back_50","format":"jws","transactionId":"8100001","appAccountToken":"7f1e0c2a-2222-4000-8000-0000000000cd","nonce":"\#(Self.nonce)"}"#
            let response = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: body)
            #expect(response.status == 200, "\(response.text)")
            #expect(response.json["format"] as? String == "jws")
            #expect(response.json["signature"] == nil)
            let jws = try #require(response.json["signedOffer"] as? String)
            let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
            try #require(parts.count == 3)
            let header = try Self.decodeSegment(parts[0])
            #expect(header["alg"] as? String == "ES256")
            #expect(header["kid"] as? String == AppleAccess.keyId)
            #expect(header["typ"] as? String == "JWT")
            let claims = try Self.decodeSegment(parts[1])
            #expect(claims["aud"] as? String == "promotional-offer")
            #expect(claims["iss"] as? String == AppleAccess.issuerId)
            #expect(claims["bid"] as? String == Fixture.bundle)
            #expect(claims["nonce"] as? String == Self.nonce)
            #expect(claims["productId"] as? String == "pro.monthly")
            #expect(claims["offerIdentifier"] as? String == "come_back_50")
            #expect(claims["transactionId"] as? String == "8100001")
            #expect(claims["iat"] as? Int == Int(Fixture.t0.timeIntervalSince1970))
            #expect(claims["exp"] == nil)

            var raw = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while raw.count % 4 != 0 { raw += "=" }
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Data(base64Encoded: raw)))
            #expect(apple.key.publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
        }
    }

    @Test("a customer who never subscribed in the group gets 409 not_eligible", arguments: ServerBackend.available)
    func neverSubscribed(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { _, client in
            for format in ["legacy", "jws"] {
                let body =
                    #"{"customerId":"stranger","productId":"pro.monthly","offerId":"o1","format":"\#(format)"}"#
                let response = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: body)
                #expect(response.status == 409, "\(response.text)")
                #expect(response.json.errorCode == "not_eligible")
            }
        }
    }

    @Test("a product that is not a subscription of the catalog gets 422 unknown_product", arguments: ServerBackend.available)
    func unknownProduct(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { harness, client in
            try await Self.subscribe("winback", harness, client)
            for product in ["pro.yearly", "pro.lifetime"] {
                let body =
                    #"{"customerId":"winback","productId":"\#(product)","offerId":"o1","appAccountToken":"7f1e0c2a-2222-4000-8000-0000000000cd"}"#
                let response = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: body)
                #expect(response.status == 422, "\(product): \(response.text)")
                #expect(response.json.errorCode == "unknown_product")
            }
        }
    }

    @Test("another app's key gets 404, no key 401, and bad input 400", arguments: ServerBackend.available)
    func accessAndInput(_ backend: ServerBackend) async throws {
        let apple = AppleAccess()
        try await apple.run(backend) { harness, client in
            try await Self.subscribe("winback", harness, client)
            let body = #"{"customerId":"winback","productId":"pro.monthly","offerId":"o1","appAccountToken":"7f1e0c2a-2222-4000-8000-0000000000cd"}"#
            for key in [Fixture.betaKey, Fixture.gammaKey] {
                let response = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: key, body: body)
                #expect(response.status == 404)
                #expect(response.json.errorCode == "not_found")
            }
            #expect(try await client.call(.post, "/v1/apps/alpha/offers/sign", body: body).status == 401)
            #expect(try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaAdmin, body: body).status == 200)
            let bad = [
                #"{"customerId":"winback","productId":"pro.monthly","offerId":"o1","format":"v3"}"#,
                #"{"customerId":"winback","productId":"pro.monthly","offerId":"o1","nonce":"abc"}"#,
                #"{"customerId":"winback","productId":"pro.monthly","offerId":"o1","appAccountToken":"abc"}"#,
                #"{"customerId":"","productId":"pro.monthly","offerId":"o1"}"#,
                #"{"customerId":"winback","productId":"pro.monthly","offerId":""}"#,
                #"{"customerId":"winback","productId":"pro.monthly"}"#,
                "", "[]",
            ]
            for text in bad {
                let response = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: text)
                #expect(response.status == 400, "\(text): \(response.text)")
                #expect(response.json.errorCode == "bad_request")
            }
        }
    }

    @Test("an app without App Store Server API credentials cannot sign: 409 no_app_store_credentials", arguments: ServerBackend.available)
    func noCredentials(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            try await Self.subscribe("winback", harness, client)
            let body = #"{"customerId":"winback","productId":"pro.monthly","offerId":"o1","appAccountToken":"7f1e0c2a-2222-4000-8000-0000000000cd"}"#
            let response = try await client.call(.post, "/v1/apps/alpha/offers/sign", key: Fixture.alphaKey, body: body)
            #expect(response.status == 409, "\(response.text)")
            #expect(response.json.errorCode == "no_app_store_credentials")
        }
    }
}
