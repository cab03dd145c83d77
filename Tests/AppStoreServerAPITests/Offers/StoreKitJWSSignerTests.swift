import AppStoreModels
import AppStoreServerAPI
import Crypto
import Foundation
import StorekeeperTestSupport
import Testing

@Suite("StoreKit JWS: promotional offer V2, introductory-offer eligibility, Advanced Commerce")
struct StoreKitJWSSignerTests {
    static let nonce = UUID(uuidString: "D31B2A8E-2A4B-4C5E-9F1A-3F5E2A1B0C9D")!
    static let issuedAt = Date(timeIntervalSince1970: 1_700_000_000.9)

    static func signer() throws -> (StoreKitJWSSigner, InAppPurchaseKey) {
        let key = try InAppPurchaseKey(keyId: "keyId", pem: Fixture.signingKeyPEM())
        return (StoreKitJWSSigner(key: key, issuerId: "issuerId", bundleId: "bundleId"), key)
    }

    static func checkBase(_ jwt: DecodedJWT, audience: String, key: InAppPurchaseKey) throws {
        #expect(jwt.header["alg"] as? String == "ES256")
        #expect(jwt.header["kid"] as? String == "keyId")
        #expect(jwt.header["typ"] as? String == "JWT")
        #expect(jwt.claims["aud"] as? String == audience)
        #expect(jwt.claims["iss"] as? String == "issuerId")
        #expect(jwt.claims["bid"] as? String == "bundleId")
        #expect(jwt.claims["iat"] as? Int == 1_700_000_000)
        #expect(jwt.claims["nonce"] as? String == "d31b2a8e-2a4b-4c5e-9f1a-3f5e2a1b0c9d")
        #expect(jwt.claims["exp"] == nil)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: jwt.signature)
        #expect(key.publicKey.isValidSignature(signature, for: Data(jwt.signingInput.utf8)))
    }

    @Test("promotional offer V2 has audience promotional-offer and the offer claims")
    func promotionalOffer() throws {
        let (signer, key) = try Self.signer()
        let jwt = try DecodedJWT(
            signer.promotionalOffer(
                productId: "productId", offerIdentifier: "offerId", transactionId: "transactionId", nonce: Self.nonce, issuedAt: Self.issuedAt))
        try Self.checkBase(jwt, audience: "promotional-offer", key: key)
        #expect(jwt.claims["productId"] as? String == "productId")
        #expect(jwt.claims["offerIdentifier"] as? String == "offerId")
        #expect(jwt.claims["transactionId"] as? String == "transactionId")

        let withoutTransaction = try DecodedJWT(
            signer.promotionalOffer(
                productId: "productId", offerIdentifier: "offerId", nonce: Self.nonce, issuedAt: Self.issuedAt))
        #expect(withoutTransaction.claims["transactionId"] == nil)
    }

    @Test("introductory-offer eligibility has its audience, the product, the flag and the transaction")
    func introductoryOfferEligibility() throws {
        let (signer, key) = try Self.signer()
        let jwt = try DecodedJWT(
            signer.introductoryOfferEligibility(
                productId: "productId", allowIntroductoryOffer: true, transactionId: "transactionId", nonce: Self.nonce, issuedAt: Self.issuedAt))
        try Self.checkBase(jwt, audience: "introductory-offer-eligibility", key: key)
        #expect(jwt.claims["allowIntroductoryOffer"] as? Bool == true)
        #expect(jwt.claims["productId"] as? String == "productId")
        #expect(jwt.claims["transactionId"] as? String == "transactionId")
    }

    @Test("Advanced Commerce in-app requests carry the request JSON as standard base64")
    func advancedCommerce() throws {
        let (signer, key) = try Self.signer()
        let request = try JSONDecoder().decode(
            AdvancedCommerceSubscriptionReactivateInAppRequest.self,
            from: Data(
                #"{"operation":"REACTIVATE_SUBSCRIPTION","version":"1","requestInfo":{"requestReferenceId":"ref"},"transactionId":"t1","items":[]}"#
                    .utf8))
        let jwt = try DecodedJWT(signer.advancedCommerceInAppRequest(request, nonce: Self.nonce, issuedAt: Self.issuedAt))
        try Self.checkBase(jwt, audience: "advanced-commerce-api", key: key)
        let encoded = try #require(jwt.claims["request"] as? String)
        let json = try #require(Data(base64Encoded: encoded))
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["operation"] as? String == "REACTIVATE_SUBSCRIPTION")
        #expect(object["transactionId"] as? String == "t1")
    }

    @Test("PyJWT decodes the offer JWS with the public key and Apple's audiences", .enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))
    func pythonDecodes() async throws {
        let (signer, _) = try Self.signer()
        let promotional = try signer.promotionalOffer(
            productId: "productId", offerIdentifier: "offerId", nonce: Self.nonce, issuedAt: Self.issuedAt)
        let eligibility = try signer.introductoryOfferEligibility(
            productId: "productId", allowIntroductoryOffer: false, transactionId: "t", nonce: Self.nonce, issuedAt: Self.issuedAt)
        let script = """
            import sys, jwt
            from cryptography.hazmat.primitives import serialization
            key = serialization.load_pem_private_key(open(sys.argv[1], 'rb').read(), password=None).public_key()
            a = jwt.decode(sys.argv[2], key, algorithms=['ES256'], audience='promotional-offer')
            b = jwt.decode(sys.argv[3], key, algorithms=['ES256'], audience='introductory-offer-eligibility')
            print(a['offerIdentifier'], b['allowIntroductoryOffer'], a['nonce'])
            """
        let output = try await PythonCrossCheck.output(script, [try Fixture.url("testSigningKey.p8").path, promotional, eligibility])
        #expect(output == "offerId False d31b2a8e-2a4b-4c5e-9f1a-3f5e2a1b0c9d")
    }
}
