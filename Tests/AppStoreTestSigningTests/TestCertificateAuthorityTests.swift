import AppStoreJOSE
import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509

@Suite("TestCertificateAuthority")
struct TestCertificateAuthorityTests {
    static let notBefore = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01
    static let notAfter = Date(timeIntervalSince1970: 1_893_456_000)  // 2030-01-01
    static let now = Date(timeIntervalSince1970: 1_748_736_000)  // 2025-06-01

    static func verifier(trusting ca: TestCertificateAuthority) throws -> SignedDataVerifier {
        try SignedDataVerifier(rootCertificates: [ca.rootCertificateDER], bundleId: "com.example", appAppleId: 1234, environment: .sandbox)
    }

    @Test("the chain is shaped like Apple's: P-384 root and intermediate, P-256 leaf, marker extensions")
    func chainShape() throws {
        let ca = try TestCertificateAuthority.generate(notBefore: Self.notBefore, notAfter: Self.notAfter)
        let root = ca.root
        let intermediate = ca.intermediate
        let leaf = ca.leaf

        #expect(root.subject == root.issuer)
        #expect(P384.Signing.PublicKey(root.publicKey) != nil)
        #expect(P384.Signing.PublicKey(intermediate.publicKey) != nil)
        #expect(P256.Signing.PublicKey(leaf.publicKey) != nil)
        for certificate in [root, intermediate, leaf] {
            #expect(certificate.signatureAlgorithm == .ecdsaWithSHA384)
            #expect(certificate.notValidBefore == Self.notBefore)
            #expect(try certificate.extensions.subjectKeyIdentifier != nil)
        }

        #expect(try root.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: nil))
        #expect(root.extensions[oid: .X509ExtensionID.basicConstraints]?.critical == true)
        #expect(try intermediate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try leaf.extensions.basicConstraints == .notCertificateAuthority)
        for ca in [root, intermediate] {
            let usage = try #require(try ca.extensions.keyUsage)
            #expect(usage.keyCertSign && usage.cRLSign && !usage.digitalSignature)
        }
        let leafUsage = try #require(try leaf.extensions.keyUsage)
        #expect(leafUsage.digitalSignature && !leafUsage.keyCertSign)

        #expect(try intermediate.extensions.authorityKeyIdentifier?.keyIdentifier == root.extensions.subjectKeyIdentifier?.keyIdentifier)
        #expect(try leaf.extensions.authorityKeyIdentifier?.keyIdentifier == intermediate.extensions.subjectKeyIdentifier?.keyIdentifier)

        let leafMarker = try #require(leaf.extensions[oid: AppleCertificateExtensions.receiptSigner])
        #expect(Array(leafMarker.value) == [0x05, 0x00] && !leafMarker.critical)
        let intermediateMarker = try #require(intermediate.extensions[oid: AppleCertificateExtensions.wwdrIntermediate])
        #expect(Array(intermediateMarker.value) == [0x05, 0x00] && !intermediateMarker.critical)
        #expect(ca.certificateChain.count == 3)
    }

    @Test("markers can be left out to forge a chain")
    func markersCanBeOmitted() throws {
        let ca = try TestCertificateAuthority.generate(
            notBefore: Self.notBefore, notAfter: Self.notAfter, markers: .init(leaf: false, intermediate: false)
        )
        #expect(ca.leaf.extensions[oid: AppleCertificateExtensions.receiptSigner] == nil)
        #expect(ca.intermediate.extensions[oid: AppleCertificateExtensions.wwdrIntermediate] == nil)
    }

    @Test("what it signs verifies, for every payload type")
    func signedPayloadsVerify() async throws {
        let ca = try TestCertificateAuthority.generate(notBefore: Self.notBefore, notAfter: Self.notAfter)
        let verifier = try Self.verifier(trusting: ca)
        let transaction = JWSTransactionDecodedPayload(
            originalTransactionId: "10", transactionId: "11", bundleId: "com.example", productId: "monthly",
            signedDate: Self.now, environment: .sandbox
        )
        let decoded = try #require(await verifier.verifyAndDecodeTransaction(try ca.signTransaction(transaction), now: Self.now).payload)
        #expect(decoded == transaction)

        let renewal = JWSRenewalInfoDecodedPayload(originalTransactionId: "10", productId: "monthly", signedDate: Self.now, environment: .sandbox)
        let signedRenewalInfo = try ca.signRenewalInfo(renewal)
        #expect(await verifier.verifyAndDecodeRenewalInfo(signedRenewalInfo, now: Self.now).payload == renewal)

        let notification = ResponseBodyV2DecodedPayload(
            notificationType: .test, notificationUUID: "f0e1d2c3-0000-4000-8000-000000000001",
            data: NotificationData(environment: .sandbox, appAppleId: 1234, bundleId: "com.example"), signedDate: Self.now
        )
        let signedNotification = try ca.signNotification(notification)
        #expect(await verifier.verifyAndDecodeNotification(signedNotification, now: Self.now).payload == notification)

        let appTransaction = AppTransaction(receiptType: .sandbox, appAppleId: 1234, bundleId: "com.example", receiptCreationDate: Self.now)
        let signedAppTransaction = try ca.signAppTransaction(appTransaction)
        #expect(await verifier.verifyAndDecodeAppTransaction(signedAppTransaction, now: Self.now).payload == appTransaction)
    }

    @Test("saved and loaded, it signs data the original root still trusts")
    func saveAndLoadRoundTrip() async throws {
        let ca = try TestCertificateAuthority.generate(notBefore: Self.notBefore, notAfter: Self.notAfter)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try ca.save(to: directory)
        let loaded = try TestCertificateAuthority.load(from: directory)
        #expect(loaded.rootCertificateDER == ca.rootCertificateDER)
        #expect(loaded.leafCertificateDER == ca.leafCertificateDER)
        let jws = try loaded.sign(jsonPayload: Data(#"{"bundleId":"com.example","environment":"Sandbox","signedDate":1748736000000}"#.utf8))
        #expect(try await Self.verifier(trusting: ca).verifyAndDecodeTransaction(jws, now: Self.now).isValid)
    }

    @Test("loading from a missing directory or with a mismatched key fails with a code")
    func loadFailures() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-missing-\(UUID().uuidString)")
        #expect { try TestCertificateAuthority.load(from: missing) } throws: { error in
            (error as? TestCertificateAuthority.LoadError)?.code == .unreadableFile
        }

        let ca = try TestCertificateAuthority.generate(notBefore: Self.notBefore, notAfter: Self.notAfter)
        let other = try TestCertificateAuthority.generate(notBefore: Self.notBefore, notAfter: Self.notAfter)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try ca.save(to: directory)
        try Data(other.leafKey.pemRepresentation.utf8).write(to: directory.appendingPathComponent(TestCertificateAuthority.FileName.leafKey))
        #expect { try TestCertificateAuthority.load(from: directory) } throws: { error in
            (error as? TestCertificateAuthority.LoadError)?.code == .keyMismatch
        }
    }
}

@Suite("ES256Signer")
struct ES256SignerTests {
    @Test("signs a compact JWS whose raw r‖s signature verifies over header.payload")
    func signatureVerifies() throws {
        let key = P256.Signing.PrivateKey()
        let jws = try ES256Signer(privateKey: key).sign(
            ["iss": "issuer", "aud": "appstoreconnect-v1"], header: JWSHeader(type: "JWT", keyId: "ABC123")
        )
        let segments = jws.split(separator: ".", omittingEmptySubsequences: false)
        #expect(segments.count == 3)
        let header = try JSONDecoder().decode(JWSHeader.self, from: try #require(Self.base64URLDecode(segments[0])))
        #expect(header == JWSHeader(algorithm: "ES256", type: "JWT", keyId: "ABC123"))
        let claims = try JSONDecoder().decode([String: String].self, from: try #require(Self.base64URLDecode(segments[1])))
        #expect(claims["aud"] == "appstoreconnect-v1")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Self.base64URLDecode(segments[2])))
        #expect(key.publicKey.isValidSignature(signature, for: Data("\(segments[0]).\(segments[1])".utf8)))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(signature, for: Data("\(segments[0]).\(segments[1])".utf8)))
    }

    static func base64URLDecode(_ segment: Substring) -> Data? {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)
    }
}
