import Foundation

/// One HTTP request of the SDK.
public struct TransportRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// Its answer.
public struct TransportResponse: Sendable, Hashable {
    public var status: Int
    public var body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// How the SDK reaches the server; injectable (URLSession on Apple platforms, AsyncHTTPClient
/// and a pinning NIO client on Linux, a test double anywhere).
///
/// Implementations throw ``StorekeeperError`` with code `network` when no answer came and
/// `pinMismatch` when the server's certificate chain does not lead to a pinned key (before
/// sending anything).
public protocol StorekeeperTransport: Sendable {
    func send(_ request: TransportRequest, timeout: TimeInterval) async throws -> TransportResponse
}
