import AppStoreTestSigning
import AppStoreVerification
import Foundation
import Testing

/// An OCSP transport that answers from memory and counts its calls; it never touches the network.
final class FakeOCSPTransport: OCSPTransport, @unchecked Sendable {
    // Safety: `requests` is only touched while `lock` is held.
    private let lock = NSLock()
    private var requests: [String] = []
    let answer: @Sendable (String) throws -> [UInt8]

    init(answer: @escaping @Sendable (String) throws -> [UInt8]) {
        self.answer = answer
    }

    var requestedURIs: [String] {
        lock.lock()
        defer { lock.unlock() }
        return requests
    }

    func response(to request: [UInt8], uri: String) async throws -> [UInt8] {
        lock.withLock { requests.append(uri) }
        return try answer(uri)
    }
}

struct ResponderUnreachable: Error {}

@Suite("Online (OCSP) checks")
struct OnlineChecksTests {
    static let now = ForgedInputTable.now

    static func verifier(_ ca: TestCertificateAuthority, _ transport: FakeOCSPTransport) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: [ca.rootCertificateDER], bundleId: "com.example.storekeeper", appAppleId: nil,
            environment: .sandbox, onlineChecks: OnlineChecks(transport: transport)
        )
    }

    @Test("an unreachable OCSP responder gives a retryable failure")
    func unreachableResponderIsRetryable() async throws {
        let ca = try TestCertificateAuthority.generate(
            notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter, ocspResponderURI: "http://ocsp.invalid/test"
        )
        let transport = FakeOCSPTransport { _ in throw ResponderUnreachable() }
        let jws = try ca.sign(jsonPayload: Data(ForgedInputTable.transaction().utf8))
        let result = try await Self.verifier(ca, transport).verifyAndDecodeTransaction(jws, now: Self.now)
        #expect(result.failure?.reason == .retryableVerificationFailure)
        #expect(transport.requestedURIs.first == "http://ocsp.invalid/test")
    }

    @Test("an unreadable OCSP answer is a verification failure")
    func garbageResponseFails() async throws {
        let ca = try TestCertificateAuthority.generate(
            notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter, ocspResponderURI: "http://ocsp.invalid/test"
        )
        let transport = FakeOCSPTransport { _ in [0x30, 0x00] }
        let jws = try ca.sign(jsonPayload: Data(ForgedInputTable.transaction().utf8))
        let result = try await Self.verifier(ca, transport).verifyAndDecodeTransaction(jws, now: Self.now)
        #expect(result.failure?.reason == .verificationFailure)
    }

    @Test("online mode checks validity at now, not at signedDate, and caches the checked chain")
    func onlineModeUsesNow() async throws {
        let ca = try TestCertificateAuthority.generate(notBefore: ForgedInputTable.caNotBefore, notAfter: ForgedInputTable.caNotAfter)
        let transport = FakeOCSPTransport { _ in throw ResponderUnreachable() }
        let verifier = try Self.verifier(ca, transport)
        // Certificates without an OCSP responder need no request.
        let signedLongAgo = try ca.sign(jsonPayload: Data(ForgedInputTable.transaction(signedDate: 1_600_000_000_000).utf8))
        #expect(await verifier.verifyAndDecodeTransaction(signedLongAgo, now: Self.now).isValid)
        #expect(verifier.cachedChainCount == 1)
        #expect(
            await verifier.verifyAndDecodeTransaction(signedLongAgo, now: Date(timeIntervalSince1970: 1_950_000_000)).failure?.reason
                == .verificationFailure)
        #expect(transport.requestedURIs.isEmpty)
    }
}
