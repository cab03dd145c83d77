import AppStoreModels
import AppStoreTestSigning
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import StorekeeperApps
import StorekeeperServer
import SubscriptionEngine

/// The workload of `storekeeper bench server`: a real server in this process on a loopback
/// port, real HTTP connections, signed notifications from a test CA the benchmark app trusts.
struct ServerBenchmark: Sendable {
    var databaseURL: String?
    var notifications: Int
    var reads: Int
    var concurrency: Int
    var timeoutSeconds: Double

    static let appId = "bench"
    static let bundleId = "com.example.storekeeper.bench"
    static let apiKey = "bench-app-key-\(UUID().uuidString)"

    /// What the benchmark prints.
    struct Report: Encodable, Sendable {
        var database: String
        var notifications: Int
        var ingestSeconds: Double
        var ingestedPerSecond: Double
        var processSeconds: Double
        var processedPerSecond: Double
        /// CPU time of the whole process (server, its database writer and the benchmark's own
        /// HTTP clients) from the first POST until the inbox is empty, per notification.
        var cpuMillisecondsPerNotification: Double
        var reads: Int
        var readSeconds: Double
        var readsPerSecond: Double
        /// `GET /health` with the same clients: the ceiling for any request in the same run.
        var healthPerSecond: Double
        var concurrency: Int
        /// Requests not answered 200, plus notifications not processed.
        var failures: Int
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func run() async throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekeeper-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Date()
        let ca = try TestCertificateAuthority.generate(notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(30 * 86_400))
        let root = directory.appendingPathComponent("bench-root.der")
        try ca.rootCertificateDER.write(to: root)
        let run = UUID().uuidString.prefix(8).lowercased()
        let chains = (0..<notifications).map { "bench-\(run)-\($0)" }
        let bodies = try chains.map { try BenchNotification.signed(ca: ca, chain: $0, bundleId: Self.bundleId, at: now) }

        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory.appendingPathComponent("data").path, databaseURL: databaseURL,
            apps: [
                AppConfiguration(
                    id: Self.appId, bundleId: Self.bundleId, environments: [.sandbox], trustedRoots: [root.path],
                    apiKeys: [APIKeyConfiguration(key: Self.apiKey, role: .app)],
                    products: [
                        CatalogProduct(
                            productId: BenchNotification.productId, type: .autoRenewable, subscriptionGroupIdentifier: "bench",
                            entitlements: ["bench"])
                    ])
            ],
            logLevel: "error")
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try await buildApplication(
            configuration: configuration,
            onServerRunning: { port in
                portContinuation.yield(port)
                portContinuation.finish()
            })
        var logger = Logger(label: "storekeeper.bench")
        logger.logLevel = .error
        let services = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let database = databaseURL == nil ? "sqlite" : "postgresql"
        let timeout = timeoutSeconds
        let result: Result<Report, any Error> = try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { portContinuation.finish() }
                try await services.run()
            }
            let outcome: Result<Report, any Error>
            do {
                let measured = try await Self.withDeadline(seconds: timeout) {
                    var iterator = ports.makeAsyncIterator()
                    guard let port = await iterator.next(), port > 0 else { throw Failure(description: "the server did not start") }
                    let load = try await BenchLoad.connect(port: port, key: Self.apiKey, concurrency: self.concurrency)
                    do {
                        let report = try await load.measure(bodies: bodies, chains: chains, reads: self.reads, database: database)
                        await load.close()
                        return report
                    } catch {
                        await load.close()
                        throw error
                    }
                }
                outcome = .success(measured)
            } catch {
                outcome = .failure(error)
            }
            await services.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return outcome
        }
        return try result.get()
    }

    /// Runs `body`, giving up after `seconds`.
    static func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw Failure(description: "gave up after \(seconds) seconds")
            }
            return value
        }
    }
}

/// Signed V2 notifications for the benchmark, built through their JSON form as Apple sends them.
enum BenchNotification {
    static let productId = "bench.monthly"

    /// A `SUBSCRIBED`/`INITIAL_BUY` notification body for a new chain.
    static func signed(ca: TestCertificateAuthority, chain: String, bundleId: String, at now: Date) throws -> String {
        let ms = Int64(now.timeIntervalSince1970 * 1000)
        let transaction: [String: Any] = [
            "transactionId": chain, "originalTransactionId": chain, "bundleId": bundleId, "productId": productId,
            "purchaseDate": ms, "originalPurchaseDate": ms, "expiresDate": ms + 30 * 86_400_000, "signedDate": ms, "quantity": 1,
            "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "environment": "Sandbox",
            "subscriptionGroupIdentifier": "bench", "transactionReason": "PURCHASE", "storefront": "USA", "currency": "USD", "price": 4990,
        ]
        let renewal: [String: Any] = [
            "originalTransactionId": chain, "productId": productId, "autoRenewProductId": productId, "autoRenewStatus": 1,
            "signedDate": ms, "environment": "Sandbox",
        ]
        let data: [String: Any] = [
            "environment": "Sandbox", "bundleId": bundleId,
            "signedTransactionInfo": try ca.signTransaction(decode(JWSTransactionDecodedPayload.self, transaction)),
            "signedRenewalInfo": try ca.signRenewalInfo(decode(JWSRenewalInfoDecodedPayload.self, renewal)),
        ]
        let notification: [String: Any] = [
            "notificationType": "SUBSCRIBED", "subtype": "INITIAL_BUY", "notificationUUID": UUID().uuidString, "version": "2.0",
            "signedDate": ms, "data": data,
        ]
        let signed = try ca.signNotification(decode(ResponseBodyV2DecodedPayload.self, notification))
        return String(decoding: try JSONSerialization.data(withJSONObject: ["signedPayload": signed]), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ object: [String: Any]) throws -> T {
        try JSONDecoder().decode(type, from: JSONSerialization.data(withJSONObject: object))
    }
}
