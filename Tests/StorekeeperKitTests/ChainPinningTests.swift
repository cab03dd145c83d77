import Foundation
import Testing
import X509

@testable import StorekeeperKit

@Suite("StorekeeperKit: a pin counts only on the chain the TLS handshake proved")
struct ChainPinningTests {
    static let loopback: [UInt8] = [127, 0, 0, 1]

    /// A root, an intermediate and a server certificate for 127.0.0.1, properly chained.
    struct Authority {
        let root: TestIssuedCertificate
        let intermediate: TestIssuedCertificate
        let server: TestIssuedCertificate

        init() throws {
            root = try TestIssuedCertificate("Pinning Test Root", isAuthority: true)
            intermediate = try TestIssuedCertificate("Pinning Test Intermediate", issuer: root, isAuthority: true)
            server = try TestIssuedCertificate("127.0.0.1", issuer: intermediate, addresses: [ChainPinningTests.loopback])
        }

        var chain: [[UInt8]] { [server.der, intermediate.der, root.der] }
    }

    func pins(_ certificates: TestIssuedCertificate...) throws -> CertificatePins {
        try CertificatePins(certificates.map(\.pin))
    }

    @Test("a certificate sent after the server's own lends it no pin: a self-made certificate followed by the genuine one is refused")
    func appendedCertificate() throws {
        let genuine = try TestIssuedCertificate("127.0.0.1", addresses: [Self.loopback])
        let mallory = try TestIssuedCertificate("127.0.0.1", addresses: [Self.loopback])
        #expect(try pins(genuine).matches(chain: [genuine.der], host: "127.0.0.1", at: Date()))
        #expect(try !pins(genuine).matches(chain: [mallory.der, genuine.der], host: "127.0.0.1", at: Date()))
        // Naming the genuine certificate as its issuer changes nothing: its signature is mallory's.
        let named = try TestIssuedCertificate("127.0.0.1", issuerName: genuine.certificate.subject, addresses: [Self.loopback])
        #expect(try !pins(genuine).matches(chain: [named.der, genuine.der], host: "127.0.0.1", at: Date()))
        // Nor does appending a genuine chain with a pinned authority.
        let authority = try Authority()
        #expect(try !pins(authority.intermediate).matches(chain: [mallory.der] + authority.chain, host: "127.0.0.1", at: Date()))
        #expect(try !pins(authority.root).matches(chain: [mallory.der] + authority.chain, host: "127.0.0.1", at: Date()))
    }

    @Test("a pin on the server's certificate, its intermediate or a presented root holds for a properly chained server")
    func chained() throws {
        let authority = try Authority()
        for pinned in [authority.server, authority.intermediate, authority.root] {
            #expect(try pins(pinned).matches(chain: authority.chain, host: "127.0.0.1", at: Date()))
        }
        // The root's key can be checked only when the root is presented.
        #expect(try !pins(authority.root).matches(chain: Array(authority.chain.prefix(2)), host: "127.0.0.1", at: Date()))
        #expect(try pins(authority.intermediate).matches(chain: Array(authority.chain.prefix(2)), host: "127.0.0.1", at: Date()))
        // The presented order of the issuers does not matter; the leaf must come first.
        #expect(
            try pins(authority.root).matches(
                chain: [authority.server.der, authority.root.der, authority.intermediate.der], host: "127.0.0.1", at: Date()))
        #expect(
            try !pins(authority.root).matches(
                chain: [authority.intermediate.der, authority.server.der, authority.root.der], host: "127.0.0.1", at: Date()))
    }

    @Test("below a pinned authority: issuers must be authorities, certificates inside their validity, and the server's must name the host")
    func authorityRules() throws {
        let authority = try Authority()
        let pinned = try pins(authority.intermediate)
        // Another host's certificate from the same authority is not this server's.
        #expect(!pinned.matches(chain: authority.chain, host: "127.0.0.2", at: Date()))
        #expect(!pinned.matches(chain: authority.chain, host: "api.example.com", at: Date()))
        // A certificate the authority gave someone else cannot issue one for this host.
        let customer = try TestIssuedCertificate("customer.example.com", issuer: authority.intermediate)
        let forged = try TestIssuedCertificate("127.0.0.1", issuer: customer, addresses: [Self.loopback])
        #expect(!pinned.matches(chain: [forged.der, customer.der, authority.intermediate.der], host: "127.0.0.1", at: Date()))
        // An expired certificate below the pin, at a time outside the validity.
        let expired = try TestIssuedCertificate(
            "127.0.0.1", issuer: authority.intermediate, addresses: [Self.loopback],
            validity: Date().addingTimeInterval(-7200)...Date().addingTimeInterval(-3600))
        #expect(!pinned.matches(chain: [expired.der, authority.intermediate.der], host: "127.0.0.1", at: Date()))
        #expect(!pinned.matches(chain: authority.chain, host: "127.0.0.1", at: Date().addingTimeInterval(2 * 86_400)))
        // A pinned leaf key is the server's identity: no name or date is asked of it.
        #expect(try pins(authority.server).matches(chain: authority.chain, host: "api.example.com", at: Date().addingTimeInterval(2 * 86_400)))
        #expect(CertificatePins.dnsName("*.example.com", matches: "api.example.com"))
        #expect(!CertificatePins.dnsName("*.example.com", matches: "example.com"))
        #expect(!CertificatePins.dnsName("*.example.com", matches: "a.b.example.com"))
    }

    @Test("a man in the middle presenting its own certificate followed by the genuine one receives nothing: no request, no Bearer credential")
    func manInTheMiddle() async throws {
        let genuine = try TestTLSCertificate()
        let mallory = try TestTLSCertificate()
        let server = try await LoopbackTLSServer(chain: [mallory.der, genuine.der], privateKeyPEM: mallory.key.pemRepresentation)
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storekeeper = try Storekeeper(
            configuration: StorekeeperConfiguration(
                serverURL: server.url, appId: "app", apiKey: "sk_app_secret_of_the_device", appUserId: "alice",
                certificatePins: ["sha256/" + genuine.pin], stateDirectory: directory, requestTimeout: 30),
            store: FakeStore())
        do {
            _ = try await storekeeper.customerInfo()
            Issue.record("the SDK trusted a chain whose pinned certificate was only appended")
        } catch let error as StorekeeperError {
            #expect(error.code == .pinMismatch && error.message.contains("nothing was sent"), "\(error)")
        }
        let transport = PinnedHTTPTransport(pins: try CertificatePins([genuine.pin]))
        let purchase = TransportRequest(
            method: "POST", url: server.url.appendingPathComponent("v1/apps/app/customers/alice/purchases"),
            headers: ["Authorization": "Bearer sk_app_secret_of_the_device"], body: Data(#"{"signedTransaction":"a.b.c"}"#.utf8))
        await #expect(throws: StorekeeperError.self) { try await transport.send(purchase, timeout: 30) }
        try await server.waitForClosedConnections(2)
        #expect(server.received.isEmpty, "the man in the middle received: \(server.received)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("server-key.pem").path))
        await server.close()
    }

    @Test("over TLS, a properly chained server is reached with a pin on its intermediate or its presented root")
    func chainedServer() async throws {
        let authority = try Authority()
        let server = try await LoopbackTLSServer(chain: authority.chain, privateKeyPEM: authority.server.key.pemRepresentation)
        for pinned in [authority.intermediate, authority.root] {
            let transport = PinnedHTTPTransport(pins: try pins(pinned))
            let answer = try await transport.send(TransportRequest(method: "GET", url: server.url.appendingPathComponent("health")), timeout: 30)
            #expect(answer.status == 200)
        }
        #expect(server.received.contains("GET /health HTTP/1.1"))
        await server.close()
    }
}
