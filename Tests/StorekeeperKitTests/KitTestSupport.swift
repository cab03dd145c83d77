import AppStoreJOSE
import Crypto
import Foundation
import SwiftASN1
import Synchronization
import X509

@testable import StorekeeperKit

/// A device clock the test moves: the wall clock, the monotonic uptime and the boot.
final class TestDeviceClock: Sendable {
    struct State {
        var wall: Date
        var uptime: TimeInterval
        var boot: String
    }
    let state: Mutex<State>

    init(wall: Date) {
        state = Mutex(State(wall: wall, uptime: 1000, boot: "boot-1"))
    }

    var clock: DeviceClock {
        DeviceClock(
            wallNow: { self.state.withLock { $0.wall } }, uptime: { self.state.withLock { $0.uptime } },
            bootId: { self.state.withLock { $0.boot } })
    }

    /// Real time passes: both clocks move.
    func pass(_ seconds: TimeInterval) {
        state.withLock {
            $0.wall += seconds
            $0.uptime += seconds
        }
    }

    /// The user sets the device's date.
    func setWall(_ date: Date) { state.withLock { $0.wall = date } }

    /// The device restarts after `seconds` off.
    func reboot(after seconds: TimeInterval) {
        state.withLock {
            $0.wall += seconds
            $0.uptime = 5
            $0.boot = "boot-\(UUID().uuidString)"
        }
    }
}

/// Signs customer states as the server does.
struct TestStateSigner {
    let key = P256.Signing.PrivateKey()

    var publicKeyPEM: String { key.publicKey.pemRepresentation }

    /// - Parameter offlineWindow: signs `offlineUntil` this long after `date`; none (as servers
    ///   before it) when `nil`.
    func sign(
        appId: String = "app", customerId: String, at date: Date, entitlements: [SignedCustomerState.Entitlement] = [],
        offlineWindow: TimeInterval? = nil
    ) throws -> String {
        let claims = SignedCustomerState.Claims(
            iss: "storekeeper", appId: appId, customerId: customerId, signedDate: Int64(date.timeIntervalSince1970 * 1000),
            offlineUntil: offlineWindow.map { Int64(date.addingTimeInterval($0).timeIntervalSince1970 * 1000) }, entitlements: entitlements)
        return try ES256Signer(privateKey: key).sign(claims, header: JWSHeader(type: "storekeeper-state+jws", keyId: "test"))
    }

    static func premium(expires: Date?, willRenew: Bool? = true) -> SignedCustomerState.Entitlement {
        SignedCustomerState.Entitlement(
            identifier: "premium", productId: "premium.monthly", productType: "autoRenewable", originalTransactionId: "1000",
            expiresDate: expires.map { Int64($0.timeIntervalSince1970 * 1000) }, willRenew: willRenew, basis: "purchase",
            ownership: "purchased")
    }
}

/// A store the test scripts: what a purchase returns, which transactions are unfinished, what
/// was finished.
final class FakeStore: StoreBackend, Sendable {
    struct State {
        var nextResult: StorePurchaseResult?
        var unfinished: [StoreTransaction] = []
        var finished: [String] = []
        var entitlements: [StoreTransaction] = []
        var lastOptions: StorePurchaseOptions?
        var intents: AsyncStream<PurchaseIntent>.Continuation?
    }
    let state = Mutex(State())

    func products(for ids: [String]) async throws -> [StoreProduct] {
        ids.map { StoreProduct(id: $0, kind: .autoRenewable, displayName: $0, displayPrice: "$9.99", subscriptionGroupId: "group") }
    }

    func purchase(productId: String, options: StorePurchaseOptions) async -> StorePurchaseResult {
        state.withLock { state in
            state.lastOptions = options
            let result = state.nextResult ?? .failed(.productUnavailable)
            if case .purchased(let transaction) = result { state.unfinished.append(transaction) }
            return result
        }
    }

    func transactionUpdates() -> AsyncStream<StoreTransaction> { AsyncStream { $0.finish() } }
    func unfinishedTransactions() async -> [StoreTransaction] { state.withLock { $0.unfinished } }
    func currentEntitlements() async -> [StoreTransaction] { state.withLock { $0.entitlements } }
    func sync() async throws {}

    func finish(_ transaction: StoreTransaction) async {
        state.withLock { state in
            state.finished.append(transaction.id)
            state.unfinished.removeAll { $0.id == transaction.id }
        }
    }

    func purchaseIntents() -> AsyncStream<PurchaseIntent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PurchaseIntent.self)
        state.withLock { $0.intents = continuation }
        return stream
    }

    static func transaction(_ id: String) -> StoreTransaction {
        StoreTransaction(
            id: id, originalId: id, productId: "premium.monthly", signedTransaction: "signed.\(id).jws", appAccountToken: nil,
            purchaseDate: Date(timeIntervalSince1970: 1_790_000_000))
    }
}

/// A server the test scripts, request by request.
final class FakeServer: StorekeeperTransport, Sendable {
    struct State {
        var requests: [TransportRequest] = []
        /// Whether the server is reachable.
        var online = true
        /// The answer to purchase posts.
        var purchaseStatus = 200
        var stateEntitlements: [SignedCustomerState.Entitlement] = []
        /// Customers whose purchase posts answer 409 (the purchase is another customer's).
        var conflictingCustomers: Set<String> = []
        /// The app account tokens the server issued, by customer.
        var issuedTokens: [String: UUID] = [:]
        /// The offline window signed into states (`offlineUntil`); none when `nil`.
        var signedOfflineWindow: TimeInterval?
    }
    let state = Mutex(State())
    let signer = TestStateSigner()
    let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    func send(_ request: TransportRequest, timeout: TimeInterval) async throws -> TransportResponse {
        let (online, status, entitlements, offlineWindow) = state.withLock { state in
            state.requests.append(request)
            return (state.online, state.purchaseStatus, state.stateEntitlements, state.signedOfflineWindow)
        }
        guard online else { throw StorekeeperError(.network, "offline") }
        let path = request.url.path
        if path.hasSuffix("/purchases"),
            !state.withLock({ $0.conflictingCustomers }).contains(request.url.deletingLastPathComponent().lastPathComponent)
        {
            let body = status < 300 ? "{}" : #"{"error":{"code":"invalid_transaction","message":"refused"}}"#
            return TransportResponse(status: status, body: Data(body.utf8))
        }
        if path.hasSuffix("/signed-state") {
            let customer = request.url.deletingLastPathComponent().lastPathComponent
            let jws = try signer.sign(customerId: customer, at: now(), entitlements: entitlements, offlineWindow: offlineWindow)
            return TransportResponse(status: 200, body: try JSONEncoder().encode(["signedState": jws, "keyId": "test"]))
        }
        if path.hasSuffix("/appAccountToken") {
            let customer = request.url.deletingLastPathComponent().lastPathComponent
            let token = issuedToken(customer)
            let answer = ["customerId": customer, "appAccountToken": token.uuidString.lowercased()]
            return TransportResponse(status: 200, body: try JSONEncoder().encode(answer))
        }
        if path.hasSuffix("/state-signing-key") {
            return TransportResponse(status: 200, body: try JSONEncoder().encode(["keyId": "test", "publicKey": signer.publicKeyPEM]))
        }
        if path.hasSuffix("/offers/sign") {
            let answer: [String: Any] = [
                "format": "legacy", "productId": "premium.monthly", "offerId": "WINBACK", "keyId": "KEY1",
                "nonce": "6c1f7a3e-0000-4000-8000-000000000001", "timestamp": 1_790_000_000_000, "signature": "c2lnbmF0dXJl",
            ]
            return TransportResponse(status: 200, body: try JSONSerialization.data(withJSONObject: answer))
        }
        if path.hasSuffix("/customers/known") {
            let answer: [String: Any] = [
                "eligibility": ["group": ["introductoryOffer": false, "promotionalOffer": true, "eligibleWinBackOfferIds": ["WB1"]]]
            ]
            return TransportResponse(status: 200, body: try JSONSerialization.data(withJSONObject: answer))
        }
        if path.hasSuffix("/purchases"),
            state.withLock({ $0.conflictingCustomers }).contains(request.url.deletingLastPathComponent().lastPathComponent)
        {
            let body = #"{"error":{"code":"transaction_belongs_to_another_customer","message":"linked to another customer"}}"#
            return TransportResponse(status: 409, body: Data(body.utf8))
        }
        if path.hasSuffix("/problems") {
            return TransportResponse(status: 201, body: Data("{}".utf8))
        }
        return TransportResponse(status: 404, body: Data(#"{"error":{"code":"not_found","message":"no such resource"}}"#.utf8))
    }

    /// The customer's app account token, issued (a random UUID) the first time it is asked for.
    func issuedToken(_ customer: String) -> UUID {
        state.withLock { state in
            if let token = state.issuedTokens[customer] { return token }
            let token = UUID()
            state.issuedTokens[customer] = token
            return token
        }
    }

    func requests(endingWith suffix: String) -> [TransportRequest] {
        state.withLock { $0.requests.filter { $0.url.path.hasSuffix(suffix) } }
    }
}

/// A self-signed P-256 certificate for a TLS server on 127.0.0.1, written as PEM files.
struct TestTLSCertificate {
    let key = P256.Signing.PrivateKey()
    let certificate: Certificate

    init() throws {
        let name = try DistinguishedName { CommonName("127.0.0.1") }
        let now = Date()
        certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400), issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))]) },
            issuerPrivateKey: .init(key))
    }

    /// The pin of the certificate's key as docs/sdk.md computes it with openssl.
    var pin: String { Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString() }

    func write(to directory: URL) throws -> (certificate: String, key: String) {
        let certificatePath = directory.appendingPathComponent("tls-cert.pem").path
        let keyPath = directory.appendingPathComponent("tls-key.pem").path
        try Data(try certificate.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: certificatePath))
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
        return (certificatePath, keyPath)
    }

    var der: [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

func temporaryDirectory() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("storekeeperkit-\(UUID().uuidString)")
}

/// A P-256 key and its certificate, issued by another such certificate or by itself, for the
/// chains of the pinning tests.
struct TestIssuedCertificate {
    let key = P256.Signing.PrivateKey()
    let certificate: Certificate

    /// - Parameters:
    ///   - issuer: the issuing certificate and key; the certificate signs itself when `nil`.
    ///   - issuerName: the issuer named in the certificate (the issuer's subject by default),
    ///     which a forger may set to another certificate's subject.
    ///   - isAuthority: whether its basic constraints make it a certificate authority.
    ///   - addresses: the IPv4 addresses its subjectAltName holds.
    init(
        _ name: String, issuer: TestIssuedCertificate? = nil, issuerName: DistinguishedName? = nil, isAuthority: Bool = false,
        addresses: [[UInt8]] = [], validity: ClosedRange<Date> = Date().addingTimeInterval(-3600)...Date().addingTimeInterval(86_400)
    ) throws {
        let subject = try DistinguishedName { CommonName(name) }
        var extensions = Certificate.Extensions()
        if isAuthority {
            try extensions.append(Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true))
        }
        if !addresses.isEmpty {
            try extensions.append(
                Certificate.Extension(SubjectAlternativeNames(addresses.map { .ipAddress(ASN1OctetString(contentBytes: $0[...])) }), critical: false))
        }
        let signingKey = issuer?.key ?? key
        certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey), notValidBefore: validity.lowerBound,
            notValidAfter: validity.upperBound, issuer: issuerName ?? issuer?.certificate.subject ?? subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(signingKey))
    }

    var der: [UInt8] {
        var serializer = DER.Serializer()
        try? serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    var pin: String { Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString() }
}
