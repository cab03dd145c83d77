import AsyncHTTPClient
import Foundation

/// The demo's HTTP client.
extension HTTPClient {
    /// Runs `body` with a client of its own, shut down afterwards.
    static func withDemoClient<T: Sendable>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 8)))
        do {
            let value = try await body(client)
            try? await client.shutdown()
            return value
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
