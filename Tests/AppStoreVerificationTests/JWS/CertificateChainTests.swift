import Crypto
import Foundation
import Testing

@testable import AppStoreVerification

/// Certificate chains alone: Apple's chain test certificates and the real Apple chain.
@Suite("Certificate chain validation")
struct CertificateChainTests {
    /// 2025-11-01, the validation time of Apple's chain tests.
    static let validationTime = Date(timeIntervalSince1970: 1_761_962_975)

    static func der(_ path: String) throws -> [UInt8] {
        Array(try AppleFixtureTests.fixture(path))
    }

    static func validate(
        leaf: String, intermediate: String, roots: [String], strict: Bool
    ) async throws -> Result<VerifiedChain, VerificationFailure> {
        let validator = try ChainValidator(rootCertificates: roots.map { Data(try der($0)) }, strict: strict)
        return await validator.validate(
            leafDER: try der(leaf), intermediateDER: try der(intermediate), online: nil, now: validationTime
        )
    }

    @Test("Apple's test leaf and intermediate chain to Apple's test root, and the key is the leaf's")
    func appleTestChainIsValid() async throws {
        let chain = try await Self.validate(
            leaf: "chain-test-certs/leaf.der", intermediate: "chain-test-certs/intermediate.der",
            roots: ["chain-test-certs/root.der"], strict: false
        ).get()
        #expect(chain.isValid(at: Self.validationTime))
        let expectedKey = try P256.Signing.PublicKey(derRepresentation: Self.der("chain-test-certs/leaf-public-key.spki.der"))
        #expect(chain.signingKey.derRepresentation == expectedKey.derRepresentation)
    }

    @Test("Apple's test chain fails the strict profile (no key identifiers)")
    func appleTestChainFailsStrictProfile() async throws {
        let result = try await Self.validate(
            leaf: "chain-test-certs/leaf.der", intermediate: "chain-test-certs/intermediate.der",
            roots: ["chain-test-certs/root.der"], strict: true
        )
        #expect(result.failureReason == .verificationFailure)
    }

    @Test("an intermediate without the WWDR marker is refused")
    func intermediateWithWrongOIDFails() async throws {
        let result = try await Self.validate(
            leaf: "chain-test-certs/leaf-for-intermediate-invalid-oid.der", intermediate: "chain-test-certs/intermediate-invalid-oid.der",
            roots: ["chain-test-certs/root.der"], strict: false
        )
        #expect(result.failureReason == .verificationFailure)
    }

    @Test("a leaf without the receipt signing marker is refused")
    func leafWithWrongOIDFails() async throws {
        let result = try await Self.validate(
            leaf: "chain-test-certs/leaf-invalid-oid.der", intermediate: "chain-test-certs/intermediate.der",
            roots: ["chain-test-certs/root.der"], strict: false
        )
        #expect(result.failureReason == .verificationFailure)
    }

    @Test("Apple's test chain is expired in 2042")
    func appleTestChainExpires() async throws {
        let chain = try await Self.validate(
            leaf: "chain-test-certs/leaf.der", intermediate: "chain-test-certs/intermediate.der",
            roots: ["chain-test-certs/root.der"], strict: false
        ).get()
        #expect(!chain.isValid(at: Date(timeIntervalSince1970: 2_280_946_846)))
    }

    @Test("the real App Store signing leaf and WWDR G6 chain to Apple Root CA - G3, strictly")
    func realAppleChainIsValid() async throws {
        let chain = try await Self.validate(
            leaf: "apple-real-chain/Prod-ECC-Mac-App-Store-and-iTunes-Store-Receipt-Signing.der",
            intermediate: "apple-real-chain/AppleWWDRCA-G6.der",
            roots: ["apple-real-chain/AppleRootCA-G3.der"], strict: true
        ).get()
        #expect(chain.isValid(at: Self.validationTime))
        #expect(!chain.isValid(at: Date(timeIntervalSince1970: 1_900_000_000)))  // 2030: the leaf has expired
    }

    @Test("the built-in G3 root is the one the real chain ends at")
    func builtInRootValidatesRealChain() async throws {
        let validator = try ChainValidator(rootCertificates: [AppleRootCertificates.appleRootCAG3], strict: true)
        let result = await validator.validate(
            leafDER: try Self.der("apple-real-chain/Prod-ECC-Mac-App-Store-and-iTunes-Store-Receipt-Signing.der"),
            intermediateDER: try Self.der("apple-real-chain/AppleWWDRCA-G6.der"), online: nil, now: Self.validationTime
        )
        #expect(result.failureReason == nil)
    }

    @Test("Apple's test leaf does not chain to the real Apple Root CA - G3")
    func testLeafUnderRealRootFails() async throws {
        let result = try await Self.validate(
            leaf: "chain-test-certs/leaf.der", intermediate: "chain-test-certs/intermediate.der",
            roots: ["apple-real-chain/AppleRootCA-G3.der"], strict: false
        )
        #expect(result.failureReason == .verificationFailure)
    }

    @Test("a leaf that is not DER is an invalid certificate")
    func garbageLeafIsInvalidCertificate() async throws {
        let validator = try ChainValidator(rootCertificates: [AppleRootCertificates.appleRootCAG3], strict: true)
        let result = await validator.validate(
            leafDER: [0x30, 0x03, 0x02, 0x01], intermediateDER: try Self.der("apple-real-chain/AppleWWDRCA-G6.der"), online: nil,
            now: Self.validationTime)
        #expect(result.failureReason == .invalidCertificate)
    }

    @Test("a root that is not DER is a configuration error")
    func garbageRootThrows() {
        #expect(throws: SignedDataVerifier.ConfigurationError.self) {
            try SignedDataVerifier(rootCertificates: [Data([1, 2, 3])], bundleId: "b", appAppleId: nil, environment: .sandbox)
        }
    }

    @Test("production without an app Apple id is a configuration error")
    func productionNeedsAppAppleId() {
        #expect(throws: SignedDataVerifier.ConfigurationError.self) {
            try SignedDataVerifier(bundleId: "b", appAppleId: nil, environment: .production)
        }
    }

    @Test("the built-in roots are Apple's, by SHA-256 fingerprint")
    func builtInRootFingerprints() throws {
        func fingerprint(_ data: Data) -> String {
            SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }
        #expect(fingerprint(AppleRootCertificates.appleRootCAG3) == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179")
        #expect(fingerprint(AppleRootCertificates.appleIncRoot) == "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024")
        #expect(AppleRootCertificates.appleRootCAG3 == (try AppleFixtureTests.fixture("apple-real-chain/AppleRootCA-G3.der")))
    }
}

extension Result where Failure == VerificationFailure {
    var failureReason: VerificationFailure.Reason? {
        if case .failure(let failure) = self { return failure.reason }
        return nil
    }
}
