import AsyncHTTPClient
import Foundation

/// The live ``HTTPTransport``: AsyncHTTPClient with a per-request timeout and a cap on the
/// response size, so a misbehaving peer can neither hang a caller nor exhaust memory.
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// Timeouts and limits.
    public struct Configuration: Sendable {
        /// The deadline for one request, from sending to the last byte of the response.
        public var timeout: Duration
        /// Responses larger than this are rejected (Apple's library uses 1 MiB).
        public var maximumResponseSize: Int

        public init(timeout: Duration = .seconds(30), maximumResponseSize: Int = 1 << 20) {
            self.timeout = timeout
            self.maximumResponseSize = maximumResponseSize
        }
    }

    private let client: HTTPClient
    private let configuration: Configuration

    /// Uses `client` (by default the process-wide shared one, which needs no shutdown).
    public init(client: HTTPClient = .shared, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
    }

    public func send(_ request: HTTPRequestValue) async throws -> HTTPResponseValue {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method)
        for field in request.headers {
            outgoing.headers.add(name: field.name, value: field.value)
        }
        if let body = request.body {
            outgoing.body = .bytes(body)
        }
        let nanoseconds =
            Int64(configuration.timeout.components.seconds) * 1_000_000_000
            + configuration.timeout.components.attoseconds / 1_000_000_000
        let response = try await client.execute(outgoing, timeout: .nanoseconds(nanoseconds))
        let buffer = try await response.body.collect(upTo: configuration.maximumResponseSize)
        var headers: [String: String] = [:]
        for field in response.headers {
            headers[field.name] = headers[field.name].map { "\($0), \(field.value)" } ?? field.value
        }
        return HTTPResponseValue(status: Int(response.status.code), headers: headers, body: Data(buffer.readableBytesView))
    }
}
