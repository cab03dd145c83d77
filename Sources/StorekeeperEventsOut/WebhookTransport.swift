import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What the dispatcher sends with: an HTTP POST that never follows redirects. Tests and the
/// demo use the live one against local receivers.
public protocol WebhookTransport: Sendable {
    func post(url: String, headers: [(String, String)], body: Data, timeout: TimeAmount) async throws -> WebhookAnswer
}

/// A destination's answer: its status and `Retry-After`, if any.
public struct WebhookAnswer: Sendable {
    public var status: Int
    public var retryAfter: String?
    /// The first 64 KiB of the answer's body (vendors explain refusals there).
    public var body: Data

    public init(status: Int, retryAfter: String? = nil, body: Data = Data()) {
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
    }
}

/// The live transport: AsyncHTTPClient with redirects off.
public struct HTTPWebhookTransport: WebhookTransport {
    package let client: HTTPClient

    public init(client: HTTPClient) { self.client = client }

    public func post(url: String, headers: [(String, String)], body: Data, timeout: TimeAmount) async throws -> WebhookAnswer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: timeout)
        var body = Data()
        for try await chunk in response.body where body.count < 64 * 1024 {
            body += Data(chunk.readableBytesView.prefix(64 * 1024 - body.count))
        }
        return WebhookAnswer(status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after"), body: body)
    }

    /// A client for webhooks: no redirects, bounded connection time.
    public static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(15)))
        configuration.httpVersion = .http1Only
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
