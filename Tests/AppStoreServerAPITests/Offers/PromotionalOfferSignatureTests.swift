import AppStoreServerAPI
import Crypto
import Foundation
import StorekeeperTestSupport
import Testing

@Suite("Legacy promotional offer signatures")
struct PromotionalOfferSignatureTests {
    static let nonce = UUID(uuidString: "D31B2A8E-2A4B-4C5E-9F1A-3F5E2A1B0C9D")!
    static let fields = PromotionalOfferSignature.Fields(
        bundleId: "com.example", keyId: "keyId", productId: "productId", offerId: "offerId",
        appAccountToken: "7389A31A-FB6D-4569-A2A6-DB7D85D84813", nonce: nonce, timestamp: 1_698_148_900_000)

    static func key() throws -> InAppPurchaseKey {
        try InAppPurchaseKey(keyId: "keyId", pem: Fixture.signingKeyPEM())
    }

    @Test("the signed string is Apple's, fields joined by U+2063, token and nonce lower-cased")
    func signedString() {
        let expected =
            "com.example\u{2063}keyId\u{2063}productId\u{2063}offerId\u{2063}7389a31a-fb6d-4569-a2a6-db7d85d84813"
            + "\u{2063}d31b2a8e-2a4b-4c5e-9f1a-3f5e2a1b0c9d\u{2063}1698148900000"
        #expect(Self.fields.signedString == expected)
        #expect(Array(PromotionalOfferSignature.Fields.separator.utf8) == [0xE2, 0x81, 0xA3])
    }

    @Test("the signature is base64 DER ECDSA that verifies with the public key over the exact string")
    func verifiesOverExactString() throws {
        let key = try Self.key()
        let signed = try PromotionalOfferSignature(fields: Self.fields, key: key)
        let der = try #require(Data(base64Encoded: signed.signature))
        #expect(der.first == 0x30)
        #expect((68...72).contains(der.count))
        let ecdsa = try P256.Signing.ECDSASignature(derRepresentation: der)
        #expect(key.publicKey.isValidSignature(ecdsa, for: Data(Self.fields.signedString.utf8)))
        #expect(signed.isValid(publicKey: key.publicKey))
    }

    @Test("changing any field, or another key, makes the signature invalid")
    func tamper() throws {
        let key = try Self.key()
        let signed = try PromotionalOfferSignature(fields: Self.fields, key: key)
        var changed = Self.fields
        changed.timestamp += 1
        #expect(!PromotionalOfferSignature(fields: changed, signature: signed.signature).isValid(publicKey: key.publicKey))
        changed = Self.fields
        changed.offerId = "other"
        #expect(!PromotionalOfferSignature(fields: changed, signature: signed.signature).isValid(publicKey: key.publicKey))
        #expect(!signed.isValid(publicKey: P256.Signing.PrivateKey().publicKey))
        #expect(!PromotionalOfferSignature(fields: Self.fields, signature: "not base64!").isValid(publicKey: key.publicKey))
    }

    @Test("signing with a key whose id differs from the fields' is refused")
    func keyIdMismatch() throws {
        var fields = Self.fields
        fields.keyId = "another"
        #expect(throws: AppStoreServerAPIError.self) { _ = try PromotionalOfferSignature(fields: fields, key: try Self.key()) }
    }

    @Test(
        "Apple's Python PromotionalOfferSignatureCreator output verifies with our verifier",
        .enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))
    func pythonSignatureVerifiesHere() async throws {
        let script = """
            import sys, uuid
            from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
            creator = PromotionalOfferSignatureCreator(open(sys.argv[1], 'rb').read(), 'keyId', 'com.example')
            print(creator.create_signature('productId', 'offerId', sys.argv[2], uuid.UUID(sys.argv[3]), int(sys.argv[4])))
            """
        let signature = try await PythonCrossCheck.output(
            script,
            [
                try Fixture.url("testSigningKey.p8").path, Self.fields.appAccountToken, Self.nonce.uuidString, String(Self.fields.timestamp),
            ])
        let key = try Self.key()
        #expect(PromotionalOfferSignature(fields: Self.fields, signature: signature).isValid(publicKey: key.publicKey))
    }

    @Test(
        "our signature verifies with Python's cryptography over the payload Apple's library builds",
        .enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))
    func ourSignatureVerifiesInPython() async throws {
        let signed = try PromotionalOfferSignature(fields: Self.fields, key: try Self.key())
        // Rebuild the payload exactly as Apple's creator does, then verify with the public key.
        let script = """
            import sys, uuid, base64, inspect
            from cryptography.hazmat.primitives import serialization, hashes
            from cryptography.hazmat.primitives.asymmetric import ec
            from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
            key = serialization.load_pem_private_key(open(sys.argv[1], 'rb').read(), password=None)
            captured = {}
            class Spy:
                def sign(self, data, algorithm):
                    captured['payload'] = data
                    return b''
            creator = PromotionalOfferSignatureCreator(open(sys.argv[1], 'rb').read(), 'keyId', 'com.example')
            creator._signing_key = Spy()
            creator.create_signature('productId', 'offerId', sys.argv[2], uuid.UUID(sys.argv[3]), int(sys.argv[4]))
            key.public_key().verify(base64.b64decode(sys.argv[5]), captured['payload'], ec.ECDSA(hashes.SHA256()))
            print('ok')
            """
        let output = try await PythonCrossCheck.output(
            script,
            [
                try Fixture.url("testSigningKey.p8").path, Self.fields.appAccountToken, Self.nonce.uuidString,
                String(Self.fields.timestamp), signed.signature,
            ])
        #expect(output == "ok")
    }
}
