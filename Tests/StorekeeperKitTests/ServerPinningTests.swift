import Crypto
import Foundation
import Hummingbird
import Logging
import StorekeeperApps
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Synchronization
import Testing

@testable import StorekeeperKit

@Suite("StorekeeperKit against the server: signed states over pinned TLS")
struct ServerPinningTests {
    static let appKey = "sk_app_storekeeperkit_tests_0123456789"
    static let adminKey = "sk_admin_storekeeperkit_tests_0123456789"

    /// Runs a server over TLS with `certificate` on a free port; `body` gets its URL.
    func withTLSServer(
        _ certificate: TestTLSCertificate, offlineWindowSeconds: Double = 10 * 86_400, _ body: @Sendable (URL) async throws -> Void
    ) async throws {
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try certificate.write(to: directory)
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.path,
            apps: [
                AppConfiguration(
                    id: "app", bundleId: "com.example.kit", environments: [.sandbox],
                    apiKeys: [APIKeyConfiguration(key: Self.appKey, role: .app), APIKeyConfiguration(key: Self.adminKey, role: .admin)])
            ])
        configuration.tls = TLSFiles(certificate: files.certificate, key: files.key)
        configuration.offlineWindowSeconds = offlineWindowSeconds
        var logger = Logger(label: "test.kit")
        logger.logLevel = .warning
        let port = Mutex(0)
        var dependencies = ServerDependencies(store: InMemoryStore(), logger: logger, runsInboxWorker: false)
        dependencies.runsDispatcher = false
        dependencies.onServerRunning = { bound in port.withLock { $0 = bound } }
        let app = try buildApplication(configuration: configuration, dependencies: dependencies)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService() }
            var bound = 0
            for _ in 0..<1200 where bound == 0 {
                try await Task.sleep(for: .milliseconds(25))
                bound = port.withLock { $0 }
            }
            try #require(bound > 0, "the server did not start")
            try await body(URL(string: "https://127.0.0.1:\(bound)")!)
            group.cancelAll()
        }
    }

    func storekeeper(_ url: URL, pins: [String], directory: URL) throws -> Storekeeper {
        try Storekeeper(
            configuration: StorekeeperConfiguration(
                serverURL: url, appId: "app", apiKey: Self.appKey, appUserId: "alice", certificatePins: pins, stateDirectory: directory,
                requestTimeout: 30),
            store: FakeStore())
    }

    @Test("with the server's pin the SDK reads the server's signed state (key fetched once and pinned); with another pin it refuses")
    func pinning() async throws {
        let certificate = try TestTLSCertificate()
        try await withTLSServer(certificate) { url in
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let info = try await storekeeper(url, pins: ["sha256/" + certificate.pin], directory: directory).customerInfo()
            #expect(info.source == .server && info.customerId == "alice" && info.entitlements.isEmpty)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("server-key.pem").path))

            // With a customer token (what an app should hold): its own customer's signed state,
            // and nobody else's.
            let transport = PinnedHTTPTransport(pins: try CertificatePins([certificate.pin]))
            let minted = try await transport.send(
                TransportRequest(
                    method: "POST", url: url.appendingPathComponent("v1/apps/app/customers/alice/tokens"),
                    headers: ["Authorization": "Bearer \(Self.appKey)"]), timeout: 30)
            let token = try #require(try JSONSerialization.jsonObject(with: minted.body) as? [String: Any])["token"] as? String
            let tokenDirectory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: tokenDirectory) }
            func device(_ customer: String) throws -> Storekeeper {
                try Storekeeper(
                    configuration: StorekeeperConfiguration(
                        serverURL: url, appId: "app", apiKey: token ?? "", appUserId: customer, certificatePins: [certificate.pin],
                        stateDirectory: tokenDirectory, requestTimeout: 30),
                    store: FakeStore())
            }
            #expect(try await device("alice").customerInfo().source == .server)
            do {
                _ = try await device("bob").customerInfo()
                Issue.record("alice's token read bob's state")
            } catch let error as StorekeeperError {
                #expect(error.status == 403)
            }

            let other = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: other) }
            let wrongPin = Data(SHA256.hash(data: P256.Signing.PrivateKey().publicKey.derRepresentation)).base64EncodedString()
            do {
                _ = try await storekeeper(url, pins: [wrongPin], directory: other).customerInfo()
                Issue.record("a server without the pinned key was trusted")
            } catch let error as StorekeeperError {
                #expect(error.code == .pinMismatch)
            }
            #expect(!FileManager.default.fileExists(atPath: other.appendingPathComponent("server-key.pem").path))
        }
    }

    @Test("the server signs offlineUntil, its signing plus offlineWindowSeconds, and the SDK's cache ends there under a longer window")
    func signedOfflineWindow() async throws {
        let certificate = try TestTLSCertificate()
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withTLSServer(certificate, offlineWindowSeconds: 3600) { url in
            let sdk = try storekeeper(url, pins: [certificate.pin], directory: directory)
            let online = try await sdk.customerInfo()
            let cached = try await sdk.cachedCustomerInfo()
            let until = try #require(cached.offlineUntil)
            #expect(abs(until.timeIntervalSince(online.serverDate) - 3600) < 0.002, "offlineUntil \(until), signed \(online.serverDate)")
        }
    }

    @Test("a pin is the SHA-256 of the certificate's SubjectPublicKeyInfo; malformed pins are configuration errors")
    func pins() throws {
        let certificate = try TestTLSCertificate()
        #expect(CertificatePins.pin(certificateDER: certificate.der) == certificate.pin)
        #expect(try CertificatePins([certificate.pin]).matches(chain: [certificate.der], host: "127.0.0.1", at: Date()))
        #expect(try !CertificatePins([TestTLSCertificate().pin]).matches(chain: [certificate.der], host: "127.0.0.1", at: Date()))
        #expect(throws: StorekeeperError.self) { try CertificatePins(["not base64!"]) }
        #expect(throws: StorekeeperError.self) { try CertificatePins([Data(count: 20).base64EncodedString()]) }
    }

    @Test("the SDK fetches a placement's offering; a targeting change applies at the next fetch; offline it serves the last one")
    func offerings() async throws {
        let certificate = try TestTLSCertificate()
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = PinnedHTTPTransport(pins: try CertificatePins([certificate.pin]))
        @Sendable func document(_ usOffering: String) -> Data {
            let object: [String: Any] = [
                "document": [
                    "offerings": [
                        ["id": "monthly-first", "packages": [["id": "m", "productId": "premium.monthly"]], "metadata": ["title": "Pro"]],
                        [
                            "id": "annual-first",
                            "packages": [["id": "y", "productId": "premium.yearly"], ["id": "m", "productId": "premium.monthly"]],
                        ],
                    ],
                    "placements": [
                        [
                            "id": "paywall", "defaultOffering": "monthly-first",
                            "rules": [["id": "us", "offering": usOffering, "storefronts": ["USA"]]],
                        ]
                    ],
                ]
            ]
            return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        }
        let url = Mutex<URL?>(nil)
        try await withTLSServer(certificate) { server in
            url.withLock { $0 = server }
            func put(_ usOffering: String) async throws -> Int {
                try await transport.send(
                    TransportRequest(
                        method: "PUT", url: server.appendingPathComponent("v1/apps/app/offerings"),
                        headers: ["Authorization": "Bearer \(Self.adminKey)", "Content-Type": "application/json"], body: document(usOffering)),
                    timeout: 30
                ).status
            }
            #expect(try await put("annual-first") == 200)
            let sdk = try storekeeper(server, pins: [certificate.pin], directory: directory)
            let first = try await sdk.offering(placement: "paywall", storefront: "USA")
            #expect(first.offeringId == "annual-first" && first.packages.map(\.productId) == ["premium.yearly", "premium.monthly"])
            #expect(first.chosenBy == ["kind": "rule", "rule": "us"] && first.source == .server)
            #expect(first.packages.first?.eligibility?.introductoryOffer == true || first.packages.first?.eligibility == nil)
            #expect(
                try await sdk.offering(placement: "paywall", storefront: "FRA").metadata.flatMap { String(data: $0, encoding: .utf8) }
                    == #"{"title":"Pro"}"#)
            #expect(try await put("monthly-first") == 200)
            #expect(try await sdk.offering(placement: "paywall", storefront: "USA").offeringId == "monthly-first")
        }
        // The server is gone: the last answer, marked as the cache's.
        let offline = try storekeeper(try #require(url.withLock { $0 }), pins: [certificate.pin], directory: directory)
        let cached = try await offline.offering(placement: "paywall", storefront: "USA")
        #expect(cached.offeringId == "monthly-first" && cached.source == .cache)
    }
}
